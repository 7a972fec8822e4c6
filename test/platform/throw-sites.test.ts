// Every throw site is declared by the operations that reach it: each route handler's reachable
// coded errors, read from the source (test/helpers/throw-sites.ts), are implied by the route's
// declaration or listed in its config.errors (src/domain/kernel/http-access/route-errors.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app/app.ts';
import { closeContext, createContext } from '../../src/domain/kernel/context.ts';
import { errorsOfRoute } from '../../src/domain/kernel/http-access/route-errors.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import type { ErrorCode } from '../../src/platform/errors/codes.ts';
import { routeReach } from '../helpers/throw-sites.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Codes the static analysis finds on a path that the arguments never take, or that a caller
 * catches (it follows calls, not values or catch blocks): operation → code → why it is never answered.
 */
const NEVER_ANSWERED: Record<string, Record<string, string>> = {
  ...Object.fromEntries(
    ['POST /api/v1/sales/:sale/reissue', 'POST /api/v1/tenants/:tenant/sales/:sale/reissue'].map((op) => [
      op,
      {
        branch_required: "a reissue files on the failed document's own device: createSale takes the branch rule only without `replaces`",
        branch_not_found: 'the same',
        no_device: 'the same',
      },
    ]),
  ),
  ...Object.fromEntries(
    ['POST /api/v1/sales/:sale/resolve', 'POST /api/v1/tenants/:tenant/sales/:sale/resolve'].map((op) => [
      op,
      { not_a_sale: 'lockFailed refuses a note only for a reissue' },
    ]),
  ),
  ...Object.fromEntries(
    ['POST /api/v1/sales/:sale/credit-note', 'POST /api/v1/sales/:sale/debit-note'].map((op) => [
      op,
      { branch_not_initialized: "a note files on its sale's device, initialised since the sale was filed" },
    ]),
  ),
  'POST /zm/api/Invoice': {
    idempotency_key_reused: 'fileLegacyInvoice catches it and answers the original invoice',
    branch_required: "a till files on its X-SdcId's branch, named to createSale",
    no_device: 'the same',
    branch_not_found: 'the same',
    branch_not_initialized: 'an X-SdcId names an initialised device only',
  },
  ...Object.fromEntries(
    ['POST /api/v1/account/signin', 'GET /api/v1/account/me'].map((op) => [
      op,
      Object.fromEntries(
        ['tenant_suspended', 'subscription_blocked', 'quota_exhausted'].map((code) => [
          code,
          'standingOf catches the refusal and presents it as the standing',
        ]),
      ),
    ]),
  ),
};

describe('every throw site is declared by the operations that reach it', () => {
  // The route catalogue of an app built as `npm run openapi` builds it: no database is read, so
  // this file runs once, on the embedded pass only.
  let app: Awaited<ReturnType<typeof buildApp>>;
  let close: () => Promise<void>;
  let reach: ReturnType<typeof routeReach>;
  before(async () => {
    const config = loadConfig({
      GATEWAY_ENV: 'development',
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN: 'route-catalogue-only',
      SECRET_KEY: 'route-catalogue-only-not-a-secret-key',
    });
    const database = await openDatabase({ migrate: false });
    const ctx = createContext(config, database);
    app = await buildApp(ctx, { logger: false });
    await app.ready();
    close = async () => {
      await app.close();
      await closeContext(ctx);
      await database.close();
    };
    reach = routeReach(ROOT);
  });
  after(() => close());

  test("each operation's route declares (or its auth implies) every code its handler can reach", () => {
    const byKey = new Map(reach.map((r) => [r.key, r]));
    let matched = 0;
    const undeclared: string[] = [];
    for (const route of app.routeCatalog) {
      const key = `${route.method} ${route.url}`;
      const found = byKey.get(key) ?? byKey.get(key.replace(' /admin/v1/', ' /'));
      if (!found) continue;
      matched++;
      const declared = errorsOfRoute(route);
      for (const [code, path] of found.codes) {
        if (declared.has(code as ErrorCode) || NEVER_ANSWERED[key]?.[code]) continue;
        undeclared.push(`${key} can answer ${code} (${path}) but neither implies nor lists it in config.errors`);
      }
    }
    assert.ok(matched >= 120, `the analysis found the handlers of ${matched} operations`);
    assert.deepEqual(undeclared, []);
  });

  test('the exceptions still name codes the analysis finds (none outlives its reason)', () => {
    const byKey = new Map(reach.map((r) => [r.key, r]));
    for (const [key, codes] of Object.entries(NEVER_ANSWERED)) {
      for (const code of Object.keys(codes))
        assert.ok(byKey.get(key)?.codes.has(code), `${key} ${code}: no longer reached; drop the exception`);
    }
  });
});
