#!/usr/bin/env node
// Builds the console into console/dist (run by `npm ci` through the prepare script).
// Without devDependencies (npm ci --omit=dev) there is no Vite: say so and leave it unbuilt.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));

let vite;
try {
  vite = await import('vite');
} catch {
  console.warn('console: vite is not installed (devDependencies omitted); /console will answer 503 until it is built.');
  process.exit(0);
}

await vite.build({
  root,
  base: '/console/',
  configFile: false,
  logLevel: process.env.CONSOLE_BUILD_QUIET ? 'warn' : 'info',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
  },
});
