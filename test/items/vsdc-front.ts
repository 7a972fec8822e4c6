// A VSDC in front of the simulator, for faults the simulator cannot switch per endpoint: it
// forwards every call over a real socket, except the paths told to answer a given envelope.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  path: string;
  request: Record<string, unknown>;
  response: Record<string, unknown> | null;
}

export interface VsdcFront {
  url: string;
  /** Every call forwarded, in order, with both bodies. */
  exchanges: Exchange[];
  /** Answer `path` with this result code and message instead of forwarding; null forwards again. */
  answer(path: string, envelope: { resultCd: string; resultMsg: string } | null): void;
  close(): Promise<void>;
}

export async function startVsdcFront(simulatorUrl: string): Promise<VsdcFront> {
  const answers = new Map<string, { resultCd: string; resultMsg: string }>();
  const exchanges: Exchange[] = [];
  const parse = (buffer: Buffer): Record<string, unknown> | null => {
    try {
      return JSON.parse(buffer.toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
  };
  const upstream = new URL(simulatorUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forced = answers.get(req.url ?? '');
      if (forced) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...forced, resultDt: '20250101000000', data: null }));
        return;
      }
      const body = Buffer.concat(chunks);
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (upstreamRes) => {
          const answer: Buffer[] = [];
          upstreamRes.on('data', (c: Buffer) => answer.push(c));
          upstreamRes.on('end', () => {
            const text = Buffer.concat(answer);
            exchanges.push({ path: req.url ?? '', request: parse(body) ?? {}, response: parse(text) });
            res.writeHead(upstreamRes.statusCode ?? 502, { 'content-type': upstreamRes.headers['content-type'] ?? 'application/json' });
            res.end(text);
          });
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    answer(path, envelope) {
      if (envelope) answers.set(path, envelope);
      else answers.delete(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
