#!/usr/bin/env node
// Runs the compiled gateway (dist/, built by `npm ci` and `npm start`); in a checkout without a
// build it runs the TypeScript sources through tsx instead. After changing src/, `npm run build`.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/main.js', import.meta.url);
let main;
if (existsSync(compiled)) {
  ({ main } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
const code = await main(process.argv.slice(2));
if (code !== 0 || !['serve', 'simulator'].includes(process.argv[2] ?? '')) process.exit(code);
