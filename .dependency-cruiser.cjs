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
    // The domain reaches authorities through src/authorities/port/ and the registry only, never
    // one authority's folder or wire package.
    {
      name: 'no-authority-folder-in-domain',
      comment: 'src/domain speaks to authorities through src/authorities/port/ and src/authorities/index.ts only (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: ['^src/authorities/zra-vsdc/', '^src/authorities/kra-etims/', '^packages/vsdc-protocol/', '^@fiscal-gateway/vsdc-protocol$'],
      },
    },
    // Kenya's adapter speaks its own wire: Zambia's folder and wire package are not its own.
    {
      name: 'kra-adapter-owns-its-wire',
      comment: "src/authorities/kra-etims/ writes KRA's own wire types; it shares only the seam (port/, transport.ts, outcome.ts, url.ts)",
      severity: 'error',
      from: { path: '^src/authorities/kra-etims/' },
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
