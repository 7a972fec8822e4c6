// Demo data for the development start: a partner, a merchant with an initialised device on the
// built-in simulator, and a tenant token, kept in a file beside the data directory so every
// start can print a ready-to-run request. Development only: the file holds live secrets.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { AppContext } from '../context.ts';
import type { Actor } from '../modules/audit/store.ts';
import { initializeDevice, registerDevice } from '../modules/provisioning/devices-service.ts';
import { vsdcHandshake } from '../modules/provisioning/handshake.ts';
import { createPartner } from '../modules/provisioning/partners-service.ts';
import { mintToken } from '../modules/provisioning/credentials-service.ts';
import { createTenant, tenantOfPartner } from '../modules/provisioning/tenants-service.ts';

/** A TPIN the simulator's taxpayer register knows (Lusaka Trading Limited). */
export const DEMO_TPIN = '2000000001';
export const DEMO_BRANCH = '000';

export interface DemoCredentials {
  partnerId: number;
  partnerKey: string;
  tenantId: number;
  tpin: string;
  branch: string;
  tenantToken: string;
  vsdcBaseUrl: string;
  createdAt: string;
}

/** `./data` → `./.data.demo.json`: beside the data directory, like its lock and key files. */
export function demoCredentialsPath(dataDir: string): string {
  const abs = resolve(dataDir);
  return join(dirname(abs), `.${basename(abs)}.demo.json`);
}

export function readDemoCredentials(dataDir: string): DemoCredentials | undefined {
  const path = demoCredentialsPath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials;
  } catch {
    return undefined;
  }
}

export async function databaseIsEmpty(ctx: AppContext): Promise<boolean> {
  const row = await ctx.db.selectFrom('partners').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

/** Provisions the demo merchant through the same services the partner API uses. */
export async function provisionDemo(ctx: AppContext, vsdcBaseUrl: string): Promise<DemoCredentials> {
  const created = await createPartner(ctx.db, ctx.secretBox, { type: 'cli' }, { name: 'Demo partner', test: true });
  const actor: Actor = { type: 'partner_key', keyId: created.key.id, partnerId: created.partner.id };
  const tenant = await createTenant(ctx.db, actor, created.partner.id, { name: 'Demo merchant', tpin: DEMO_TPIN });
  const tenantRow = await tenantOfPartner(ctx.db, created.partner.id, tenant.id);
  await registerDevice(ctx.db, actor, tenantRow, { deviceSerial: 'DEMO-DEVICE-0001', branch: DEMO_BRANCH, vsdcBaseUrl });
  await initializeDevice(ctx.db, actor, tenantRow, DEMO_BRANCH, vsdcHandshake(ctx));
  const token = await mintToken(ctx.db, actor, tenantRow, 'Demo till');
  const credentials: DemoCredentials = {
    partnerId: created.partner.id,
    partnerKey: created.key.secret,
    tenantId: tenant.id,
    tpin: DEMO_TPIN,
    branch: DEMO_BRANCH,
    tenantToken: token.token,
    vsdcBaseUrl,
    createdAt: new Date().toISOString(),
  };
  writeFileSync(demoCredentialsPath(ctx.config.dataDir), `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}

/**
 * What the development start prints: the demo's credentials as the one `export` line every
 * example in docs/ starts from (GATEWAY, PARTNER_KEY, TENANT_TOKEN, SIM), and a sale to try.
 */
export function demoInstructions(gatewayUrl: string, demo: DemoCredentials, credentialsFile: string, simulatorUrl = demo.vsdcBaseUrl): string {
  const sale = JSON.stringify({ items: [{ name: 'Maize meal 25kg', classificationCode: '50221200', quantity: 2, price: 185 }] });
  return [
    '',
    'Demo merchant (development only; credentials in ' + credentialsFile + '):',
    `  tenant token: ${demo.tenantToken}`,
    `  partner key:  ${demo.partnerKey}   (partner endpoints, e.g. GET ${gatewayUrl}/api/v1/tenants)`,
    `  console:      ${gatewayUrl}/console   (sign in with the partner key)   API reference: ${gatewayUrl}/docs`,
    '',
    'The examples in docs/ use these variables; paste this line into your shell:',
    `  export GATEWAY=${gatewayUrl} PARTNER_KEY=${demo.partnerKey} TENANT_TOKEN=${demo.tenantToken} SIM=${simulatorUrl}`,
    '',
    'Fiscalise a sale:',
    `  curl -sS -X POST $GATEWAY/api/v1/sales \\`,
    `    -H "Authorization: Bearer $TENANT_TOKEN" -H 'Content-Type: application/json' \\`,
    `    -d '${sale}'`,
    '',
  ].join('\n');
}
