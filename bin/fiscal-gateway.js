#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so the CLI works straight after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
const code = await main(process.argv.slice(2));
if (code !== 0 || !['serve', 'simulator'].includes(process.argv[2] ?? '')) process.exit(code);
