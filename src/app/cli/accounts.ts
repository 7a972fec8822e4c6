// The operator's account commands (`partner …`, `tenant …`): loaded only when one runs, so that
// `--help`, `--version` and usage errors answer without loading the database or the HTTP stack.
import { parseArgs } from 'node:util';
import type { Config } from '../../platform/config.ts';
import type { AppContext } from '../../domain/kernel/context.ts';
import { SCOPES, type Scope } from '../../credentials/abilities.ts';
import {
  createPartner,
  listPartners,
  setPartnerStatus,
  updateTenantAccount,
  type TenantAccountPatch,
} from '../../domain/partner/provisioning/partners-service.ts';
import { listAllTenants } from '../../domain/kernel/tenants/service.ts';
import { UsageError, noMoreArguments, print, table } from './output.ts';
import { withContext } from './with-context.ts';

function positiveId(value: string | undefined, what: string): number {
  if (!value || !/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`expected a ${what} id, got "${value ?? ''}"`);
  return Number(value);
}

export async function partnerCommand(config: Config, args: string[], json: boolean): Promise<void> {
  const [sub, ...rest] = args;
  const actor = { type: 'cli' as const };
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: false,
      options: { name: { type: 'string' }, test: { type: 'boolean' }, scopes: { type: 'string' } },
    });
    if (!values.name?.trim()) throw new UsageError('partner create needs --name');
    let scopes: Scope[] | undefined;
    if (values.scopes) {
      scopes = values.scopes.split(',').map((s) => s.trim()) as Scope[];
      const unknown = scopes.filter((s) => !SCOPES.includes(s));
      if (unknown.length) throw new UsageError(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
    }
    const created = await withContext(
      config,
      'partner create',
      (ctx) =>
        createPartner(ctx.db, ctx.secretBox, actor, { name: values.name!, test: values.test ?? false, ...(scopes ? { scopes } : {}) }),
      { seals: true },
    );
    print(
      json,
      created,
      `partner ${created.partner.id} "${created.partner.name}" created\nsecret key (store it now): ${created.key.secret}\nscopes: ${created.key.scopes.join(', ')}`,
    );
    return;
  }
  if (sub === 'list') {
    noMoreArguments(rest, 'partner list');
    const partners = await withContext(config, 'partner list', (ctx) => listPartners(ctx.db));
    print(
      json,
      partners,
      partners.length
        ? table(
            ['ID', 'STATUS', 'NAME'],
            partners.map((p) => [String(p.id), p.status, p.name]),
          )
        : 'no partners',
    );
    return;
  }
  if (sub === 'suspend' || sub === 'resume') {
    noMoreArguments(rest.slice(1), `partner ${sub}`);
    const id = positiveId(rest[0], 'partner');
    const partner = await withContext(config, `partner ${sub}`, (ctx) =>
      setPartnerStatus(ctx.db, actor, id, sub === 'suspend' ? 'suspended' : 'active'),
    );
    print(json, partner, `partner ${partner.id} is ${partner.status}`);
    return;
  }
  throw new UsageError('partner takes: create, list, suspend, resume');
}

function tenantPatch(sub: string | undefined, value: string | undefined): TenantAccountPatch {
  const numberOrNone = (what: string) => {
    if (value === 'none') return null;
    if (!value || !/^\d+$/.test(value)) throw new UsageError(`tenant ${what} takes a whole number or "none"`);
    return Number(value);
  };
  switch (sub) {
    case 'plan': {
      const plans = ['free_trial', 'starter', 'growth', 'enterprise'] as const;
      if (value === 'none') return { plan: null };
      if (!plans.includes(value as (typeof plans)[number])) throw new UsageError(`tenant plan takes one of ${plans.join(', ')}, none`);
      return { plan: value as (typeof plans)[number] };
    }
    case 'block':
      return { subscription: 'blocked' };
    case 'unblock':
      return { subscription: 'active' };
    case 'suspend':
      return { status: 'suspended' };
    case 'resume':
      return { status: 'active' };
    case 'quota':
      return { monthlyQuota: numberOrNone('quota') };
    case 'rate-limit': {
      const n = numberOrNone('rate-limit');
      if (n === 0) throw new UsageError('tenant rate-limit must be at least 1');
      return { rateLimitPerMinute: n };
    }
    default:
      throw new UsageError('tenant takes: list, plan, block, unblock, suspend, resume, quota, rate-limit');
  }
}

/**
 * `tenant …`: each command runs through `withContext` (main.ts passes cli/with-context.ts's on the
 * operator's configuration; tests pass their own context).
 */
export async function tenantCommand(
  args: string[],
  json: boolean,
  withContext: <T>(command: string, run: (ctx: AppContext) => Promise<T>) => Promise<T>,
): Promise<void> {
  const [sub, idText, value, ...extra] = args;
  if (sub === 'list') {
    noMoreArguments(args.slice(1), 'tenant list');
    const tenants = await withContext('tenant list', async (ctx) => {
      const partnerNames = new Map((await listPartners(ctx.db)).map((p) => [p.id, p.name]));
      return (await listAllTenants(ctx.db)).map((t) => ({
        ...t,
        partnerName: t.partnerId === null ? null : (partnerNames.get(t.partnerId) ?? null),
      }));
    });
    print(
      json,
      tenants,
      tenants.length
        ? table(
            ['ID', 'TPIN', 'PARTNER', 'SUBSCRIPTION', 'STATUS', 'NAME'],
            tenants.map((t) => [
              String(t.id),
              t.tpin,
              t.partnerId === null ? 'self sign-up' : `${t.partnerName ?? 'partner'} (${t.partnerId})`,
              t.subscription,
              t.status,
              t.name,
            ]),
          )
        : 'no merchants',
    );
    return;
  }
  const takesValue = ['plan', 'quota', 'rate-limit'].includes(sub ?? '');
  noMoreArguments(takesValue ? extra : [value, ...extra].filter((a) => a !== undefined), `tenant ${sub ?? ''}`.trim());
  const patch = tenantPatch(sub, value);
  const id = positiveId(idText, 'tenant');
  const tenant = await withContext(`tenant ${sub}`, (ctx) => updateTenantAccount(ctx.db, { type: 'cli' }, id, patch));
  print(
    json,
    tenant,
    `tenant ${tenant.id}: plan ${tenant.plan ?? 'none'}, subscription ${tenant.subscription}, status ${tenant.status}, quota ${tenant.monthlyQuota ?? 'none'}, rate limit ${tenant.rateLimitPerMinute ?? 'plan default'}`,
  );
}
