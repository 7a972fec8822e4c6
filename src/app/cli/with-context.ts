import type { Config } from '../../platform/config.ts';
import { closeContext, createContext, type AppContext } from '../../domain/kernel/context.ts';
import { openDatabase, type Database } from '../../platform/db/database.ts';
import { developmentKeyFile } from '../../credentials/secret-box.ts';
import type { SecretKeyOutcome } from '../../credentials/secret-key.ts';
import { verifyDevelopmentKeyFile, verifySecretKey } from '../secret-key.ts';

/**
 * A PostgreSQL database (one a production may share) that has just recorded the development key
 * file as its key: said at once, not at the servers' next start.
 */
export function developmentKeyNote(config: Config, command: string, outcome: SecretKeyOutcome): string | undefined {
  if (outcome !== 'recorded' || config.secretKey !== undefined || config.databaseUrl === undefined) return undefined;
  return `note: SECRET_KEY is not set: \`${command}\` sealed with the development key file ${developmentKeyFile(config.dataDir)}, which this database now records as the key of its secrets; every server and CLI command on it needs SECRET_KEY set to that file's contents (docs/deployment.md#secret_key)`;
}

/**
 * Opens the database and an application context for one CLI command, and closes both after it.
 * The command runs only with the key that seals the database's secrets (exit 3 otherwise: the CLI
 * needs the same SECRET_KEY as the servers); `seals`: it seals secrets itself (`partner create`),
 * so it records its key when the database records none yet.
 */
export async function withContext<T>(
  config: Config,
  command: string,
  run: (ctx: AppContext) => Promise<T>,
  options: { seals?: boolean } = {},
): Promise<T> {
  const database: Database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command });
  try {
    await verifyDevelopmentKeyFile(config, database.db, command);
  } catch (err) {
    await database.close();
    throw err;
  }
  const ctx = createContext(config, database);
  try {
    const note = developmentKeyNote(config, command, await verifySecretKey(ctx, command, { claim: options.seals ?? false }));
    const result = await run(ctx);
    if (note) process.stderr.write(`fiscal-gateway: ${note}\n`);
    return result;
  } finally {
    await closeContext(ctx);
    await database.close();
  }
}
