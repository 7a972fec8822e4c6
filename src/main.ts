import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, type Config } from './platform/config.ts';
import { DataDirLockedError } from './platform/db/data-dir-lock.ts';
import { DataDirUnusableError } from './platform/db/data-dir.ts';
import type { OpenProgress } from './platform/db/database.ts';
import { EXIT, UsageError, noMoreArguments, print } from './app/cli/output.ts';
import { NotFoundError } from './platform/errors/errors.ts';

const HELP = `fiscal-gateway — fiscalise sales through VSDCs

Usage: fiscal-gateway <command> [options]   (add --json for machine-readable output)

Commands:
  --version                             print the gateway's and the interface's versions
  serve [--api-only | --workers-only]   run the gateway (HTTP API and background workers)
  migrate                               apply database migrations and exit
  simulator [--port N] [--authority zra|kra]
                                        run the authority simulator standalone (zra: the VSDC;
                                        kra: eTIMS OSCU at the root, VSCU at /kra-vscu)
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
  export documents --tenant ID --from YYYY-MM-DD --to YYYY-MM-DD [--format csv|xlsx] [--branch NNN] --out FILE
                                        a merchant's documents with their lines (days in its timezone)
  reconcile --tenant ID [--branch 000] --from YYYY-MM-DD --to YYYY-MM-DD
                                        compare a branch's documents with its VSDC (or continue
                                        the branch's open reconciliation), printing progress
  backup --out FILE [--url URL]         copy the embedded database to FILE (a .tar.gz): online
                                        through the running server (it needs ADMIN_TOKEN; --url
                                        when it is not at HOST:PORT), or directly when none runs.
                                        On PostgreSQL it copies nothing: it prints the pg_dump
                                        command to use and exits 2
  restore --from FILE                   restore a backup into an empty (or new) DATA_DIR; on
                                        PostgreSQL it prints the pg_restore command and exits 2
  certify [--vsdc URL --tpin TPIN] [--branch BHF] [--serial SERIAL] [--out DIR]
                                        walk the authority's developer checklist on a scratch
                                        gateway of its own (never DATABASE_URL or DATA_DIR), filing
                                        to the VSDC at URL or to its own simulator; writes
                                        DIR/report.md and DIR/evidence.json (DIR: ./certification);
                                        exits 6 when an endpoint or mandatory item fails

The database is DATABASE_URL (PostgreSQL) or, without it, the embedded one in DATA_DIR
(./data). With the embedded database the CLI works only while no server holds it. The CLI
needs the same DATABASE_URL, GATEWAY_ENV and SECRET_KEY as the servers: the database records
which key sealed its secrets, and a command with another one stops (exit 3).

Exit codes: 0 ok, 1 failure, 2 usage (also: backup or restore on PostgreSQL, restore into a
non-empty DATA_DIR), 3 configuration (a bad variable, a SECRET_KEY other than the one that
sealed the database's secrets, or a port it names in use), 4 database
in use, 5 not found (also: no database to back up, no backup file), 6 certify: the checklist
was not passed (report.md says why), 7 the embedded database's DATA_DIR cannot be used (it
cannot be written, or its files are damaged: restore a backup).`;

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
  // A command that runs once and exits (all but `serve`) compiles the embedded database's
  // WebAssembly with V8's baseline compiler only: optimising it again in the background costs
  // more CPU than such a command's few statements ever win back (docs/decisions.md).
  if (command !== 'serve') setFlagsFromString('--liftoff-only');
  let config: Config | undefined;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      print(false, null, HELP);
      return command ? EXIT.ok : EXIT.usage;
    }
    if (command === '--version' || command === '-v' || command === 'version') {
      noMoreArguments(rest, command);
      const { INTERFACE_VERSION } = await import('./app/app.ts');
      const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
      print(json, { version, interfaceVersion: INTERFACE_VERSION }, `fiscal-gateway ${version} (interface ${INTERFACE_VERSION})`);
      return EXIT.ok;
    }
    if (command === 'simulator') {
      const { simulatorCommand } = await import('./app/cli/simulator.ts');
      await simulatorCommand(rest);
      return EXIT.ok;
    }
    if (command === 'certify') {
      // Its own scratch gateway: the operator's configuration is neither read nor needed.
      return await (await import('./app/cli/certify.ts')).certifyCommand(rest, json);
    }
    config = loadConfig();
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({
          args: rest,
          strict: true,
          allowPositionals: false,
          options: { 'api-only': { type: 'boolean' }, 'workers-only': { type: 'boolean' } },
        });
        if (values['api-only'] && values['workers-only']) throw new UsageError('choose one of --api-only and --workers-only');
        // Development only: the built-in simulator and the demo merchant (not loaded otherwise).
        const developmentStart = config.env === 'development' ? (await import('./app/dev/index.ts')).developmentStart : undefined;
        const { serve } = await import('./app/server.ts');
        await serve(config, {
          api: !values['workers-only'],
          workers: !values['api-only'],
          json,
          ...(developmentStart ? { developmentStart } : {}),
        });
        return EXIT.ok;
      }
      case 'migrate': {
        noMoreArguments(rest, 'migrate');
        const { openDatabase, SERVER_START_WAIT_MS } = await import('./platform/db/database.ts');
        let applied = 0;
        const onProgress = (progress: OpenProgress) => {
          if (progress.fields.migration !== undefined) applied += 1;
          process.stderr.write(`${progress.line}\n`);
        };
        const database = await openDatabase({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          command: 'migrate',
          onProgress,
          waitForServerMs: SERVER_START_WAIT_MS,
        });
        await database.close();
        print(
          json,
          { migrated: true, applied },
          applied === 0 ? 'the database is up to date: no migration to apply' : `migrations applied: ${applied}`,
        );
        return EXIT.ok;
      }
      case 'partner':
        await (await import('./app/cli/accounts.ts')).partnerCommand(config, rest, json);
        return EXIT.ok;
      case 'tenant': {
        const loaded = config;
        const { tenantCommand } = await import('./app/cli/accounts.ts');
        const { withContext } = await import('./app/cli/with-context.ts');
        await tenantCommand(rest, json, (name, run) => withContext(loaded, name, run));
        return EXIT.ok;
      }
      case 'export': {
        const { exportDocumentsToFile, parseExportArgs } = await import('./app/cli/export.ts');
        const { withContext } = await import('./app/cli/with-context.ts');
        const options = parseExportArgs(rest);
        const { bytes } = await withContext(config, 'export documents', (ctx) => exportDocumentsToFile(ctx, options));
        print(
          json,
          { out: options.out, bytes },
          `documents of tenant ${options.tenantId} from ${options.from} to ${options.to} written to ${options.out} (${bytes} bytes)`,
        );
        return EXIT.ok;
      }
      case 'reconcile': {
        const loaded = config;
        const { reconcileCommand } = await import('./app/cli/reconcile.ts');
        const { withContext } = await import('./app/cli/with-context.ts');
        await reconcileCommand(rest, json, (name, run) => withContext(loaded, name, run));
        return EXIT.ok;
      }
      case 'backup':
        await (await import('./app/cli/backup.ts')).backupCommand(config, rest, json);
        return EXIT.ok;
      case 'restore':
        await (await import('./app/cli/backup.ts')).restoreCommand(config, rest, json);
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
    if (err instanceof DataDirUnusableError) return fail(EXIT.dataDir, `data_dir_${err.problem}`, err.message);
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
