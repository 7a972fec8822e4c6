// `npm run sql`: writes the compiled text of each hot statement to docs/sql/*.sql (the statements
// and their forms: scripts/sql-text.ts), so that a reviewer reads the statement, not its
// assembly. test/platform/sql-text.test.ts fails when the committed files differ from what the
// code compiles.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SQL_FILES, sqlFileText } from './sql-text.ts';

const OUTPUT = fileURLToPath(new URL('../docs/sql/', import.meta.url));

mkdirSync(OUTPUT, { recursive: true });
const written = new Set(SQL_FILES.map((file) => file.name));
// A statement no longer listed leaves no stale file behind.
for (const name of readdirSync(OUTPUT)) if (name.endsWith('.sql') && !written.has(name)) rmSync(join(OUTPUT, name));
for (const file of SQL_FILES) writeFileSync(join(OUTPUT, file.name), sqlFileText(file));
console.log(`wrote ${SQL_FILES.length} files to ${OUTPUT}`);
