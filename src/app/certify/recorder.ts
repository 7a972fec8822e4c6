// The evidence of a certification run: a recording relay between the gateway and the VSDC. The
// scratch merchant's devices are registered with the relay's address, so every call the gateway's
// own workers and routes make reaches the VSDC unchanged, and the relay writes down each request
// and answer with its times. A VSDC that cannot be reached is passed on as such (the relay drops
// the gateway's connection), so the gateway meets the VSDC's real behaviour.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  /** 1-based, in the order the requests arrived. */
  seq: number;
  /** The protocol's endpoint name: the path's last segment (`saveSales`). */
  endpoint: string;
  path: string;
  /** The taxpayer and branch the request names. */
  tpin: string | null;
  bhfId: string | null;
  sentAt: string;
  answeredAt: string | null;
  ms: number;
  request: unknown;
  /** The HTTP status, or null when the VSDC could not be reached. */
  status: number | null;
  answer: unknown;
  /** The envelope's result code (`000`, `001`, `9xx`), when the answer is one. */
  resultCd: string | null;
  /** Why no answer came, when none did. */
  error: string | null;
}

export interface Recorder {
  /** The address to register devices with. */
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const field = (value: unknown, name: string): string | null => {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' ? v : null;
};

/** Starts the relay on 127.0.0.1 (a free port) in front of `vsdcBaseUrl`. */
export async function startRecorder(vsdcBaseUrl: string, timeoutMs: number): Promise<Recorder> {
  const upstream = vsdcBaseUrl.replace(/\/+$/, '');
  const calls: RecordedCall[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const text = await bodyOf(request);
      const path = (request.url ?? '/').split('?')[0]!;
      const body = parsed(text);
      const sent = new Date();
      const call: RecordedCall = {
        seq: calls.length + 1,
        endpoint: path.split('/').filter(Boolean).pop() ?? path,
        path,
        tpin: field(body, 'tpin'),
        bhfId: field(body, 'bhfId'),
        sentAt: sent.toISOString(),
        answeredAt: null,
        ms: 0,
        request: body,
        status: null,
        answer: null,
        resultCd: null,
        error: null,
      };
      calls.push(call);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
      }
      try {
        const answer = await fetch(`${upstream}${request.url ?? '/'}`, {
          method: request.method ?? 'POST',
          headers,
          body: request.method === 'GET' || request.method === 'HEAD' ? undefined : text,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const answerText = await answer.text();
        const answered = new Date();
        Object.assign(call, {
          answeredAt: answered.toISOString(),
          ms: answered.getTime() - sent.getTime(),
          status: answer.status,
          answer: parsed(answerText),
          resultCd: field(parsed(answerText), 'resultCd'),
        });
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        response.end(answerText);
      } catch (err) {
        call.ms = Date.now() - sent.getTime();
        call.error = (err as Error).cause
          ? String(((err as Error).cause as Error).message ?? (err as Error).cause)
          : (err as Error).message;
        request.socket.destroy();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
