// `npm run openapi`: writes the live app's OpenAPI document to docs/openapi.json (2-space JSON,
// trailing newline), the snapshot packages/client generates its types from.
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { openDatabase } from '../src/db/database.ts';

const OUTPUT = new URL('../docs/openapi.json', import.meta.url);

const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), secretKey: 'openapi-export-only-0123456789abcdef' };
const database = await openDatabase({});
const ctx = createContext(config, database);
const app = await buildApp(ctx, { logger: false });
try {
  await app.ready();
  writeFileSync(OUTPUT, `${JSON.stringify(app.swagger(), null, 2)}\n`);
} finally {
  await app.close();
  await closeContext(ctx);
  await database.close();
}
