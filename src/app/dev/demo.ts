// Demo data for the development start: a partner, a merchant with an initialised device on the
// built-in simulator, and a tenant token, kept in a file beside the data directory so every
// start can print a ready-to-run request. Development only: the file holds live secrets.
//
// The demo and the simulator's state belong to the database they were made for. Their files are
// named for that database (databaseFiles), and the credentials on file are checked against the
// database before they are printed, so a start on another database never prints credentials
// that do not work there.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../../domain/kernel/context.ts';
import { findPartnerKey } from '../../credentials/key-lookup.ts';
import { findTenantToken } from '../../credentials/tenant-token-lookup.ts';
import type { Actor } from '../../domain/kernel/audit/store.ts';
import { initializeDevice } from '../../domain/kernel/devices/initialisation.ts';
import { registerDevice } from '../../domain/kernel/devices/service.ts';
import { authorityHandshake } from '../../domain/kernel/devices/handshake.ts';
import { learnBranchesAtInitialisation } from '../../domain/kernel/devices/register.ts';
import { createPartner } from '../../domain/partner/provisioning/partners-service.ts';
import { mintToken } from '../../domain/kernel/tenants/credentials-service.ts';
import { createTenant, tenantOfPartner } from '../../domain/kernel/tenants/service.ts';

/** A TPIN the simulator's taxpayer register knows (Lusaka Trading Limited). */
const DEMO_TPIN = '2000000001';
const DEMO_BRANCH = '000';
/** The Kenyan demo merchant: a KRA PIN, its headquarters branch on the simulator's OSCU profile. */
const KENYA_PIN = 'P051234567X';
const KENYA_BRANCH = '00';
/** A classification code both authorities' catalogues hold (cereals and grains). */
const DEMO_CLASS = '50221200';

export interface DemoCredentials {
  partnerId: number;
  partnerKey: string;
  tenantId: number;
  tpin: string;
  branch: string;
  tenantToken: string;
  vsdcBaseUrl: string;
  createdAt: string;
  /** The Kenyan merchant beside it (KRA eTIMS, OSCU); absent in a demo made before Kenya. */
  kenya?: { tenantId: number; tpin: string; branch: string; tenantToken: string; vsdcBaseUrl: string };
}

/** The development start's files for one database: its demo credentials and its simulator's state. */
interface DatabaseFiles {
  demo: string;
  simulator: string;
}

/**
 * `./data` → `./.data.demo.json` and `./.data.simulator.json` for the embedded database (the data
 * directory is the database). A PostgreSQL database gets its own pair beside the data directory,
 * `./.data.demo.pg-<id>.json`, where the id hashes the server's system identifier (or, when the
 * role may not read it, the URL's host and port), the database's oid and its name: another
 * database, or the same name dropped and created again, is another pair.
 */
export async function databaseFiles(ctx: AppContext): Promise<DatabaseFiles> {
  const abs = resolve(ctx.config.dataDir);
  const at = (kind: string, suffix: string) => join(dirname(abs), `.${basename(abs)}.${kind}${suffix}.json`);
  if (ctx.database.kind === 'embedded') return { demo: at('demo', ''), simulator: at('simulator', '') };
  const { rows } = await sql<{
    oid: string;
    datname: string;
  }>`select oid::text, datname from pg_database where datname = current_database()`.execute(ctx.db);
  let server: string;
  try {
    const system = await sql<{ id: string }>`select system_identifier::text as id from pg_control_system()`.execute(ctx.db);
    server = system.rows[0]!.id;
  } catch {
    const url = new URL(ctx.config.databaseUrl!);
    server = `${url.hostname}:${url.port || '5432'}`;
  }
  const id = createHash('sha256').update(`${server}/${rows[0]!.oid}/${rows[0]!.datname}`).digest('hex').slice(0, 12);
  return { demo: at('demo', `.pg-${id}`), simulator: at('simulator', `.pg-${id}`) };
}

/**
 * Before the files were named for their database, every database used the embedded pair; a
 * PostgreSQL database whose demo is in them (its credentials work there) takes them over once.
 */
export async function adoptUnnamedFiles(ctx: AppContext, files: DatabaseFiles): Promise<void> {
  if (ctx.database.kind === 'embedded' || existsSync(files.demo)) return;
  const abs = resolve(ctx.config.dataDir);
  const unnamed = (kind: string) => join(dirname(abs), `.${basename(abs)}.${kind}.json`);
  const demo = readDemoCredentials(unnamed('demo'));
  if (!demo || !(await demoWorksOn(ctx, demo))) return;
  copyFileSync(unnamed('demo'), files.demo);
  if (existsSync(unnamed('simulator')) && !existsSync(files.simulator)) copyFileSync(unnamed('simulator'), files.simulator);
}

/** An empty database has no demo and no devices: the files a previous database left here are not its own. */
export function forgetDatabaseFiles(files: DatabaseFiles): void {
  // The simulator keeps each further profile's state beside the default one's: `<file>.<profile id>`.
  const profiles = !existsSync(dirname(files.simulator))
    ? []
    : readdirSync(dirname(files.simulator)).filter((name) => name.startsWith(`${basename(files.simulator)}.`));
  for (const path of [files.demo, files.simulator, ...profiles.map((name) => join(dirname(files.simulator), name))])
    rmSync(path, { force: true });
}

export function readDemoCredentials(path: string): DemoCredentials | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials;
  } catch {
    return undefined;
  }
}

/** The demo's token and partner key are live in this database and belong to the demo's tenant and partner. */
export async function demoWorksOn(ctx: AppContext, demo: DemoCredentials): Promise<boolean> {
  if (typeof demo.tenantToken !== 'string' || typeof demo.partnerKey !== 'string') return false;
  const token = await findTenantToken(ctx.db, demo.tenantToken, ctx.clock.now());
  const key = await findPartnerKey(ctx.db, demo.partnerKey, ctx.clock.now());
  return token?.tenant.id === demo.tenantId && key?.partner.id === demo.partnerId;
}

export async function databaseIsEmpty(ctx: AppContext): Promise<boolean> {
  const row = await ctx.db.selectFrom('partners').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

/** Provisions the demo merchant through the same services the partner API uses, and writes its credentials to `file`. */
export async function provisionDemo(ctx: AppContext, vsdcBaseUrl: string, file: string, kenyaBaseUrl?: string): Promise<DemoCredentials> {
  const created = await createPartner(ctx.db, ctx.secretBox, { type: 'cli' }, { name: 'Demo partner', test: true });
  const actor: Actor = { type: 'partner_key', keyId: created.key.id, partnerId: created.partner.id };
  const tenant = await createTenant(ctx.db, actor, created.partner.id, { name: 'Demo merchant', tpin: DEMO_TPIN });
  const tenantRow = await tenantOfPartner(ctx.db, created.partner.id, tenant.id);
  await registerDevice(ctx.db, actor, tenantRow, { deviceSerial: 'DEMO-DEVICE-0001', branch: DEMO_BRANCH, vsdcBaseUrl });
  await initializeDevice(ctx.db, actor, tenantRow, DEMO_BRANCH, authorityHandshake(ctx), {
    afterInitialized: () => learnBranchesAtInitialisation(ctx, tenantRow.id),
  });
  const token = await mintToken(ctx.db, actor, tenantRow, 'Demo till');
  let kenya: DemoCredentials['kenya'];
  if (kenyaBaseUrl) {
    const kenyan = await createTenant(ctx.db, actor, created.partner.id, {
      name: 'Demo merchant (Kenya)',
      tpin: KENYA_PIN,
      authority: 'kra',
    });
    const kenyanRow = await tenantOfPartner(ctx.db, created.partner.id, kenyan.id);
    await registerDevice(ctx.db, actor, kenyanRow, {
      deviceSerial: 'DEMO-OSCU-0001',
      branch: KENYA_BRANCH,
      vsdcBaseUrl: kenyaBaseUrl,
      protocol: 'oscu',
    });
    await initializeDevice(ctx.db, actor, kenyanRow, KENYA_BRANCH, authorityHandshake(ctx));
    const kenyanToken = await mintToken(ctx.db, actor, kenyanRow, 'Demo till (Kenya)');
    kenya = { tenantId: kenyan.id, tpin: KENYA_PIN, branch: KENYA_BRANCH, tenantToken: kenyanToken.token, vsdcBaseUrl: kenyaBaseUrl };
  }
  const credentials: DemoCredentials = {
    partnerId: created.partner.id,
    partnerKey: created.key.secret,
    tenantId: tenant.id,
    tpin: DEMO_TPIN,
    branch: DEMO_BRANCH,
    tenantToken: token.token,
    vsdcBaseUrl,
    createdAt: new Date().toISOString(),
    ...(kenya ? { kenya } : {}),
  };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}

/**
 * What the development start prints: the demo's credentials as the one `export` line every
 * example in docs/ starts from (GATEWAY, PARTNER_KEY, TENANT_TOKEN, SIM, and the Kenyan
 * merchant's KE_TENANT_TOKEN and KE_SIM), and a sale to try for each.
 */
export function demoInstructions(
  gatewayUrl: string,
  demo: DemoCredentials,
  credentialsFile: string,
  simulatorUrl = demo.vsdcBaseUrl,
  kenyaSimulatorUrl = demo.kenya?.vsdcBaseUrl,
): string {
  const sale = JSON.stringify({ items: [{ name: 'Maize meal 25kg', classificationCode: DEMO_CLASS, quantity: 2, price: 185 }] });
  const kenyanSale = JSON.stringify({
    items: [{ name: 'Unga wa ugali 2kg', classificationCode: DEMO_CLASS, quantity: 2, price: 230, vatCategory: 'B' }],
  });
  const kenya = demo.kenya ? ` KE_TENANT_TOKEN=${demo.kenya.tenantToken} KE_SIM=${kenyaSimulatorUrl}` : '';
  return [
    '',
    'Demo merchant (development only; credentials in ' + credentialsFile + '):',
    `  tenant token: ${demo.tenantToken}`,
    `  partner key:  ${demo.partnerKey}   (partner endpoints, e.g. GET ${gatewayUrl}/api/v1/tenants)`,
    `  console:      ${gatewayUrl}/console   (partners: the partner key; merchants: create an account there — the mail is in the development outbox)`,
    `  API reference: ${gatewayUrl}/docs`,
    '',
    'The examples in docs/ use these variables; paste this line into your shell:',
    `  export GATEWAY=${gatewayUrl} PARTNER_KEY=${demo.partnerKey} TENANT_TOKEN=${demo.tenantToken} SIM=${simulatorUrl}${kenya}`,
    '',
    'Fiscalise a sale:',
    `  curl -sS -X POST $GATEWAY/api/v1/sales \\`,
    `    -H "Authorization: Bearer $TENANT_TOKEN" -H 'Content-Type: application/json' \\`,
    `    -d '${sale}'`,
    ...(demo.kenya
      ? [
          '',
          `Fiscalise a Kenyan sale (KRA eTIMS OSCU, PIN ${demo.kenya.tpin}, branch ${demo.kenya.branch}; docs/kenya.md):`,
          `  curl -sS -X POST $GATEWAY/api/v1/sales \\`,
          `    -H "Authorization: Bearer $KE_TENANT_TOKEN" -H 'Content-Type: application/json' \\`,
          `    -d '${kenyanSale}'`,
        ]
      : []),
    '',
  ].join('\n');
}
