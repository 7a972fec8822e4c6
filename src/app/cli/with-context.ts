import type { Config } from '../../platform/config.ts';
import { closeContext, createContext, type AppContext } from '../../domain/kernel/context.ts';
import { openDatabase, type Database } from '../../platform/db/database.ts';
import { verifySecretKey } from '../secret-key.ts';

/**
 * Opens the database and an application context for one CLI command, and closes both after it.
 * The command runs only with the key that seals the database's secrets (exit 3 otherwise: the CLI
 * needs the same SECRET_KEY as the servers); `seals`: it seals secrets itself (`partner create`),
 * so it records its key when the database records none yet.
 */
export async function withContext<T>(config: Config, command: string, run: (ctx: AppContext) => Promise<T>, options: { seals?: boolean } = {}): Promise<T> {
  const database: Database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command });
  const ctx = createContext(config, database);
  try {
    await verifySecretKey(ctx, command, { claim: options.seals ?? false });
    return await run(ctx);
  } finally {
    await closeContext(ctx);
    await database.close();
  }
}
