// Serves the built console (console/dist) at /console: the gateway is its only server.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_DIST = fileURLToPath(new URL('../../../../console/dist/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

export interface ConsoleFile {
  body: Buffer;
  contentType: string;
  etag: string;
  /** Vite puts a content hash in every file name under assets/: those never change. */
  immutable: boolean;
}

export interface ConsoleBundle {
  index: ConsoleFile;
  /** By path under /console/, e.g. `assets/index-3f2a.js`. */
  files: Map<string, ConsoleFile>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** Reads the whole build (a few hundred KiB) into memory; undefined when it has not been built. */
export function loadConsoleBundle(dist = CONSOLE_DIST): ConsoleBundle | undefined {
  if (!existsSync(join(dist, 'index.html'))) return undefined;
  const files = new Map<string, ConsoleFile>();
  for (const path of walk(dist)) {
    const name = relative(dist, path).split(sep).join('/');
    const body = readFileSync(path);
    files.set(name, {
      body,
      contentType: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      immutable: name.startsWith('assets/'),
    });
  }
  const index = files.get('index.html');
  return index ? { index, files } : undefined;
}

/** The console talks only to this origin; no inline script, no framing. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-src blob:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
