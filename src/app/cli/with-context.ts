import type { Config } from '../../platform/config.ts';
import { closeContext, createContext, type AppContext } from '../../domain/kernel/context.ts';
import { openDatabase, type Database } from '../../platform/db/database.ts';

/** Opens the database and an application context for one CLI command, and closes both after it. */
export async function withContext<T>(config: Config, command: string, run: (ctx: AppContext) => Promise<T>): Promise<T> {
  const database: Database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, command });
  const ctx = createContext(config, database);
  try {
    return await run(ctx);
  } finally {
    await closeContext(ctx);
    await database.close();
  }
}
