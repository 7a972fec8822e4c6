// The import rule of docs/architecture.md ("The layers"): each layer imports only the layers below
// it, and no files or folders import one another in a cycle. `npm run lint` runs it (so does CI);
// `npx depcruise src --config .dependency-cruiser.cjs --output-type err-long` explains a failure.

/** From the bottom up. Layers on one line are peers: neither imports the other. */
const LAYERS = [
  { name: 'platform', path: '^src/platform/' },
  { name: 'authorities', path: '^src/authorities/', peers: ['credentials'] },
  { name: 'credentials', path: '^src/credentials/', peers: ['authorities'] },
  { name: 'kernel', path: '^src/domain/kernel/' },
  { name: 'merchant', path: '^src/domain/merchant/' },
  { name: 'fiscal', path: '^src/domain/fiscal/' },
  { name: 'feeds', path: '^src/domain/feeds/' },
  { name: 'partner', path: '^src/domain/partner/' },
  { name: 'app', path: '^src/(app/|main[.]ts$)' },
];

const levelOf = (layer) => {
  const i = LAYERS.indexOf(layer);
  return layer.peers ? Math.min(i, ...layer.peers.map((p) => LAYERS.findIndex((l) => l.name === p))) : i;
};

const upward = LAYERS.map((layer) => {
  const above = LAYERS.filter((other) => other !== layer && (levelOf(other) > levelOf(layer) || (layer.peers ?? []).includes(other.name)));
  return {
    name: `no-upward-import-from-${layer.name}`,
    comment: `${layer.name} imports only the layers below it (docs/architecture.md, "The layers")`,
    severity: 'error',
    from: { path: layer.path },
    to: { path: above.map((l) => l.path) },
  };
}).filter((rule) => rule.to.path.length > 0);

/**
 * The domain reaches authorities through src/authorities/port/ and the registry only, never one
 * authority's folder or wire package. The files still converting are listed: each leaves the list
 * when it is clean, and the list goes when it is empty.
 */
const NOT_YET_BEHIND_THE_SEAM = [
  '^src/domain/feeds/imports/service[.]ts$',
  '^src/domain/feeds/imports/store[.]ts$',
  '^src/domain/feeds/notices/service[.]ts$',
  '^src/domain/feeds/notices/store[.]ts$',
  '^src/domain/feeds/principals/service[.]ts$',
  '^src/domain/feeds/pulls/branch-pulls[.]ts$',
  '^src/domain/feeds/purchases/capture[.]ts$',
  '^src/domain/feeds/purchases/schemas[.]ts$',
  '^src/domain/feeds/purchases/service[.]ts$',
  '^src/domain/feeds/purchases/store[.]ts$',
  '^src/domain/feeds/stock-ledger/service[.]ts$',
  '^src/domain/feeds/stock-ledger/store[.]ts$',
  '^src/domain/kernel/authority-rows/answers[.]ts$',
  '^src/domain/kernel/authority-rows/devices[.]ts$',
  '^src/domain/kernel/branch-users/service[.]ts$',
  '^src/domain/kernel/branch-users/store[.]ts$',
  '^src/domain/kernel/catalogue/service[.]ts$',
  '^src/domain/kernel/context[.]ts$',
  '^src/domain/kernel/devices/register[.]ts$',
  '^src/domain/kernel/devices/store[.]ts$',
  '^src/domain/merchant/customers/service[.]ts$',
  '^src/domain/merchant/customers/store[.]ts$',
  '^src/domain/merchant/items/composition-store[.]ts$',
  '^src/domain/merchant/items/composition[.]ts$',
  '^src/domain/merchant/items/reconciliation[.]ts$',
  '^src/domain/merchant/items/schemas[.]ts$',
  '^src/domain/merchant/items/service[.]ts$',
  '^src/domain/merchant/items/store[.]ts$',
];

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-src-in-packages',
      comment: 'the workspace packages stand alone: they import nothing from the gateway',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^src/' },
    },
    {
      name: 'no-authority-folder-in-domain',
      comment: 'src/domain speaks to authorities through src/authorities/port/ and src/authorities/index.ts only (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/domain/', pathNot: NOT_YET_BEHIND_THE_SEAM },
      to: { path: ['^src/authorities/zra-vsdc/', '^packages/vsdc-protocol/', '^@fiscal-gateway/vsdc-protocol$'] },
    },
    { name: 'no-cycle-between-files', severity: 'error', from: { path: '^(src|packages)/' }, to: { circular: true } },
    { name: 'no-cycle-between-folders', severity: 'error', scope: 'folder', from: { path: '^(src|packages)/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'] },
  },
};
