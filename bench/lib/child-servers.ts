// Servers a benchmark runs in child processes, one event loop each:
//   simulator   the VSDC simulator (packages/simulator)
//   fastify     a bare Fastify JSON endpoint with a response schema and no logger: the HTTP ceiling
//   receivers   webhook receivers: `healthy` answers 200 at once and counts the distinct
//               deliveries it got (GET /count), `stalled` never answers
// The child sends its URLs over IPC and lives until it is killed or its parent goes away.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { startSimulator } from '@fiscal-gateway/simulator';

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const listen = (server: Server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

async function simulator(): Promise<Record<string, string>> {
  const sim = await startSimulator({ port: 0 });
  return { url: sim.url, origin: sim.origin, kraOscu: sim.urlOf('kra-oscu') };
}

async function fastify(): Promise<Record<string, string>> {
  const app = Fastify({ logger: false });
  app.get('/', { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } }, async () => ({
    hello: 'world',
  }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url };
}

async function receivers(): Promise<Record<string, string>> {
  const seen = new Set<string>();
  let requests = 0;
  const healthy = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/count') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, deliveries: seen.size }));
      return;
    }
    req.resume();
    req.on('end', () => {
      requests++;
      const id = req.headers['x-webhook-delivery'];
      if (typeof id === 'string') seen.add(id);
      res.writeHead(200).end('ok');
    });
  });
  const stalled = createServer((req) => req.resume());
  await Promise.all([listen(healthy), listen(stalled)]);
  return { healthy: urlOf(healthy), stalled: urlOf(stalled) };
}

const kind = process.argv[2];
const servers: Record<string, () => Promise<Record<string, string>>> = { simulator, fastify, receivers };
const start = kind ? servers[kind] : undefined;
if (!start) throw new Error(`unknown child server "${kind ?? ''}"`);
process.send?.(await start());
process.on('disconnect', () => process.exit(0));
