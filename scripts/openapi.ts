// `npm run openapi`: writes the OpenAPI document of the current code to docs/openapi.json, the
// file client generators read. test/platform/openapi.test.ts fails when the committed file is
// not the document the code serves.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app/app.ts';
import { loadConfig } from '../src/platform/config.ts';
import { closeContext, createContext } from '../src/domain/kernel/context.ts';
import { openDatabase } from '../src/platform/db/database.ts';
import { serializeOpenApi } from '../src/app/api-reference.ts';

const OUTPUT = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

// An operator token, so that the document has the operator API (/admin/v1) as a server started
// with ADMIN_TOKEN serves it; and a secret key, so that nothing is written beside a data directory.
const config = loadConfig({
  GATEWAY_ENV: 'development',
  LOG_LEVEL: 'silent',
  ADMIN_TOKEN: 'openapi-document-only',
  SECRET_KEY: 'openapi-document-only-not-a-secret-key',
});
// Building the app reads nothing from the database: an empty one in memory will do.
const database = await openDatabase({ migrate: false });
const ctx = createContext(config, database);
try {
  const app = await buildApp(ctx, { logger: false });
  await app.ready();
  writeFileSync(OUTPUT, serializeOpenApi(app.swagger()));
  await app.close();
} finally {
  await closeContext(ctx);
  await database.close();
}
console.log(`wrote ${OUTPUT}`);
