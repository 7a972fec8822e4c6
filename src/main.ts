import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { closeContext, createContext, type AppContext } from './context.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { openDatabase, type Database } from './db/database.ts';
import { EXIT, UsageError, print } from './cli/output.ts';
import { NotFoundError } from './http/errors.ts';
import { SCOPES, type Scope } from './http/auth.ts';
import { createPartner, listPartners, setPartnerStatus, updateTenantAccount, type TenantAccountPatch } from './modules/provisioning/partners-service.ts';
import { listAllTenants } from './modules/provisioning/tenants-service.ts';
import { serve } from './server.ts';

const HELP = `fiscal-gateway — fiscalise sales through VSDCs

Usage: fiscal-gateway <command> [options]   (add --json for machine-readable output)

Commands:
  --version                             print the gateway's and the interface's versions
  serve [--api-only | --workers-only]   run the gateway (HTTP API and background workers)
  migrate                               apply database migrations and exit
  simulator [--port N]                  run the VSDC simulator standalone
  partner create --name N [--test] [--scopes s1,s2]
                                        create a partner; prints its first secret key
  partner list                          every partner
  partner suspend <id> | partner resume <id>
  tenant list                           every merchant, with its partner and account state
  tenant plan <id> <free_trial|starter|growth|enterprise|none>
  tenant block <id> | tenant unblock <id>
  tenant suspend <id> | tenant resume <id>
  tenant quota <id> <documents|none>
  tenant rate-limit <id> <per-minute|none>

The database is DATABASE_URL (PostgreSQL) or, without it, the embedded one in DATA_DIR
(./data). With the embedded database the CLI works only while no server holds it.

Exit codes: 0 ok, 1 failure, 2 usage, 3 configuration (a bad variable, or a port it names
in use), 4 database in use, 5 not found.`;

/** Refuses what a command does not take (a stray argument is a typo, never ignored). */
function noMoreArguments(args: string[], command: string): void {
  if (args.length > 0) throw new UsageError(`${command} takes no further arguments, got: ${args.join(' ')}`);
}

function positiveId(value: string | undefined, what: string): number {
  if (!value || !/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`expected a ${what} id, got "${value ?? ''}"`);
  return Number(value);
}

async function withContext<T>(config: Config, command: string, run: (ctx: AppContext) => Promise<T>): Promise<T> {
  const database: Database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command });
  const ctx = createContext(config, database);
  try {
    return await run(ctx);
  } finally {
    await closeContext(ctx);
    await database.close();
  }
}

async function partnerCommand(config: Config, args: string[], json: boolean): Promise<void> {
  const [sub, ...rest] = args;
  const actor = { type: 'cli' as const };
  if (sub === 'create') {
    const { values } = parseArgs({ args: rest, strict: true, allowPositionals: false, options: { name: { type: 'string' }, test: { type: 'boolean' }, scopes: { type: 'string' } } });
    if (!values.name?.trim()) throw new UsageError('partner create needs --name');
    let scopes: Scope[] | undefined;
    if (values.scopes) {
      scopes = values.scopes.split(',').map((s) => s.trim()) as Scope[];
      const unknown = scopes.filter((s) => !SCOPES.includes(s));
      if (unknown.length) throw new UsageError(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
    }
    const created = await withContext(config, 'partner create', (ctx) =>
      createPartner(ctx.db, ctx.secretBox, actor, { name: values.name!, test: values.test ?? false, ...(scopes ? { scopes } : {}) }),
    );
    print(json, created, `partner ${created.partner.id} "${created.partner.name}" created\nsecret key (store it now): ${created.key.secret}\nscopes: ${created.key.scopes.join(', ')}`);
    return;
  }
  if (sub === 'list') {
    noMoreArguments(rest, 'partner list');
    const partners = await withContext(config, 'partner list', (ctx) => listPartners(ctx.db));
    print(json, partners, partners.map((p) => `${p.id}\t${p.status}\t${p.name}`).join('\n') || 'no partners');
    return;
  }
  if (sub === 'suspend' || sub === 'resume') {
    noMoreArguments(rest.slice(1), `partner ${sub}`);
    const id = positiveId(rest[0], 'partner');
    const partner = await withContext(config, `partner ${sub}`, (ctx) => setPartnerStatus(ctx.db, actor, id, sub === 'suspend' ? 'suspended' : 'active'));
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

async function tenantCommand(config: Config, args: string[], json: boolean): Promise<void> {
  const [sub, idText, value, ...extra] = args;
  if (sub === 'list') {
    noMoreArguments(args.slice(1), 'tenant list');
    const tenants = await withContext(config, 'tenant list', (ctx) => listAllTenants(ctx.db));
    print(
      json,
      tenants,
      tenants.map((t) => `${t.id}\t${t.tpin}\tpartner ${t.partnerId ?? 'none'}\t${t.subscription}/${t.status}\t${t.name}`).join('\n') || 'no merchants',
    );
    return;
  }
  const takesValue = ['plan', 'quota', 'rate-limit'].includes(sub ?? '');
  noMoreArguments(takesValue ? extra : [value, ...extra].filter((a) => a !== undefined), `tenant ${sub ?? ''}`.trim());
  const patch = tenantPatch(sub, value);
  const id = positiveId(idText, 'tenant');
  const tenant = await withContext(config, `tenant ${sub}`, (ctx) => updateTenantAccount(ctx.db, { type: 'cli' }, id, patch));
  print(json, tenant, `tenant ${tenant.id}: plan ${tenant.plan ?? 'none'}, subscription ${tenant.subscription}, status ${tenant.status}, quota ${tenant.monthlyQuota ?? 'none'}, rate limit ${tenant.rateLimitPerMinute ?? 'plan default'}`);
}

/**
 * A PostgreSQL that cannot be reached, refuses the login or has no such database: one line that
 * says what to check, instead of a stack trace. Undefined for any other failure.
 */
function databaseProblem(err: unknown, config: Config | undefined): string | undefined {
  if (!config?.databaseUrl) return undefined;
  const e = err as { code?: string; message?: string; errors?: Array<{ code?: string }> };
  const code = e.code ?? e.errors?.[0]?.code;
  const reasons = new Map([
    ['ECONNREFUSED', 'nothing listens there'],
    ['ENOTFOUND', 'the host name does not resolve'],
    ['ETIMEDOUT', 'the connection timed out'],
    ['EHOSTUNREACH', 'the host is unreachable'],
    ['3D000', 'the database does not exist'],
    ['28P01', 'the password was refused'],
    ['28000', 'the login was refused'],
  ]);
  const reason = code === undefined ? undefined : reasons.get(code);
  if (reason === undefined) return undefined;
  const where = config.databaseUrl.replace(/\/\/[^@/]*@/, '//');
  return `cannot use the database at ${where}: ${reason} (${e.message ?? code}). Check DATABASE_URL and that PostgreSQL is running.`;
}

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const [command, ...rest] = args;
  let config: Config | undefined;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      print(false, null, HELP);
      return command ? EXIT.ok : EXIT.usage;
    }
    if (command === '--version' || command === '-v' || command === 'version') {
      noMoreArguments(rest, command);
      const { INTERFACE_VERSION } = await import('./app.ts');
      const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
      print(json, { version, interfaceVersion: INTERFACE_VERSION }, `fiscal-gateway ${version} (interface ${INTERFACE_VERSION})`);
      return EXIT.ok;
    }
    if (command === 'simulator') {
      const { runSimulatorCli } = await import('./simulator/cli.ts');
      await runSimulatorCli(rest);
      return EXIT.ok;
    }
    config = loadConfig();
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({ args: rest, strict: true, allowPositionals: false, options: { 'api-only': { type: 'boolean' }, 'workers-only': { type: 'boolean' } } });
        if (values['api-only'] && values['workers-only']) throw new UsageError('choose one of --api-only and --workers-only');
        // Development only: the built-in simulator and the demo merchant (not loaded otherwise).
        const developmentStart = config.env === 'development' ? (await import('./dev/index.ts')).developmentStart : undefined;
        await serve(config, { api: !values['workers-only'], workers: !values['api-only'], json, ...(developmentStart ? { developmentStart } : {}) });
        return EXIT.ok;
      }
      case 'migrate': {
        noMoreArguments(rest, 'migrate');
        const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command: 'migrate' });
        await database.close();
        print(json, { migrated: true }, 'migrations applied');
        return EXIT.ok;
      }
      case 'partner':
        await partnerCommand(config, rest, json);
        return EXIT.ok;
      case 'tenant':
        await tenantCommand(config, rest, json);
        return EXIT.ok;
      default:
        throw new UsageError(`unknown command "${command}"; see fiscal-gateway --help`);
    }
  } catch (err) {
    const fail = (code: number, kind: string, message: string) => {
      if (json) process.stdout.write(JSON.stringify({ error: { code: kind, message } }) + '\n');
      else process.stderr.write(`fiscal-gateway: ${message}\n`);
      return code;
    };
    // The simulator's argument errors (by name: the simulator is loaded only for its command).
    if (err instanceof UsageError || (err as Error).name === 'SimulatorCliError') return fail(EXIT.usage, 'usage', (err as Error).message);
    if (err instanceof ConfigError) return fail(EXIT.config, 'config', `configuration: ${err.message}`);
    if (err instanceof DataDirLockedError) return fail(EXIT.locked, 'database_in_use', err.message);
    if (err instanceof NotFoundError) return fail(EXIT.notFound, 'not_found', err.message);
    const code = (err as { code?: string }).code;
    if (code?.startsWith('ERR_PARSE_ARGS_')) return fail(EXIT.usage, 'usage', `${(err as Error).message}; see fiscal-gateway --help`);
    const unreachable = databaseProblem(err, config);
    if (unreachable) return fail(EXIT.failure, 'database_unreachable', unreachable);
    return fail(EXIT.failure, 'failure', (err as Error).stack ?? String(err));
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const code = await main(process.argv.slice(2));
  if (code !== EXIT.ok || !['serve', 'simulator'].includes(process.argv[2] ?? '')) process.exit(code);
}
