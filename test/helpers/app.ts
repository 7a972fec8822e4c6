import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app/app.ts';
import { loadConfig, type Config } from '../../src/platform/config.ts';
import { closeContext, createContext, type AppContext, type Clock } from '../../src/domain/kernel/context.ts';
import type { Scope } from '../../src/credentials/abilities.ts';
import type { Logger } from '../../src/platform/observability/log.ts';
import { createPartner } from '../../src/domain/partner/provisioning/partners-service.ts';
import { createTenant, tenantOfPartner } from '../../src/domain/kernel/tenants/service.ts';
import { mintApiKey, mintToken } from '../../src/domain/kernel/tenants/credentials-service.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef0123456789';
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ GATEWAY_ENV: 'development', LOG_LEVEL: 'silent' }),
    secretKey: TEST_SECRET_KEY,
    adminToken: TEST_ADMIN_TOKEN,
    builtinSimulator: false,
    // scrypt at N=2^10 instead of 2^15: hashes stay real, a test run is not 30 ms a password.
    passwordScryptLog2N: 10,
    ...overrides,
  };
}

export class ManualClock implements Clock {
  constructor(private current = new Date()) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  testDb: TestDatabase;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** `log`: the context's logger (the workers', the mailer's); `logLines`: the app's request log. */
export async function startTestApp(
  options: { config?: Partial<Config>; clock?: Clock; log?: Logger; logLines?: string[] } = {},
): Promise<TestApp> {
  const testDb = await createTestDatabase();
  const ctx = createContext(testConfig(options.config), testDb.database, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const lines = options.logLines;
  const app = await buildApp(ctx, { logger: lines ? { level: 'info', stream: { write: (line) => void lines.push(line) } } : false });
  await app.ready();
  return {
    app,
    ctx,
    testDb,
    inject: (o) => app.inject(o),
    async close() {
      await app.close();
      await closeContext(ctx);
      await testDb.close();
    },
  };
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

let tpinCounter = 1000000000 + Math.floor(Math.random() * 8_000_000_000);
export function uniqueTpin(): string {
  tpinCounter += 1;
  return String(tpinCounter).slice(0, 10).padStart(10, '1');
}

export async function seedPartner(ctx: AppContext, options: { test?: boolean; scopes?: Scope[]; name?: string } = {}) {
  const created = await createPartner(
    ctx.db,
    ctx.secretBox,
    { type: 'cli' },
    { name: options.name ?? 'Test partner', test: options.test ?? false, ...(options.scopes ? { scopes: options.scopes } : {}) },
  );
  return { partnerId: created.partner.id, keyId: created.key.id, secret: created.key.secret };
}

/** A partner, one of its merchants, a tenant token and a tenant fiscalisation key. */
export async function seedMerchant(ctx: AppContext, partner?: { partnerId: number; keyId: number; secret: string }) {
  const p = partner ?? (await seedPartner(ctx));
  const actor = { type: 'partner_key' as const, keyId: p.keyId, partnerId: p.partnerId };
  const tenant = await createTenant(ctx.db, actor, p.partnerId, { name: 'Test merchant', tpin: uniqueTpin() });
  const row = await tenantOfPartner(ctx.db, p.partnerId, tenant.id);
  const token = await mintToken(ctx.db, actor, row, 'till');
  const apiKey = await mintApiKey(ctx.db, actor, row, {});
  return { partner: p, tenant, tenantRow: row, token: token.token, tokenId: token.id, apiKey: apiKey.key, apiKeyId: apiKey.id };
}
