// What the KRA adapter's tests share: a document KRA takes, and a tiny KRA on a real socket that
// records what each call sent (path, headers, body) and answers as the test says.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FiscalDocument } from '../../../src/authorities/port/filing.ts';

export function kraSale(over: Partial<FiscalDocument> = {}): FiscalDocument {
  return {
    type: 'sale',
    invoiceNo: 7,
    salesType: 'normal',
    original: null,
    customer: { tpin: 'A123456789Z', name: 'Buyer Ltd' },
    paymentMethod: '06',
    // 09:30:05 UTC is 12:30:05 in Nairobi.
    occurredAt: new Date('2026-12-06T09:30:05Z'),
    taxInclusive: false,
    destinationCountryCode: null,
    reasonCode: null,
    currency: 'KES',
    exchangeRate: 1,
    lpoNumber: null,
    principalId: null,
    remark: null,
    details: null,
    reference: 'INV-2026-7',
    lines: [
      {
        name: 'Soap',
        classificationCode: '5059690800',
        itemCode: 'KE1NTXU0000001',
        quantity: 1,
        price: '1.00',
        vatCategory: 'B',
        discount: '0.10',
      },
    ],
    ...over,
  };
}

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the fake answers a call: a status and a JSON value (or raw text). */
export type Answer = { status?: number; json?: unknown; text?: string };

export interface FakeKra {
  url: string;
  calls: Recorded[];
  /** The answer of the next calls to a path (its last segment); the default is `000` with null data. */
  answer(path: string, answer: Answer | ((call: Recorded) => Answer)): void;
  close(): Promise<void>;
}

export function envelope(resultCd: string, data: unknown = null, resultMsg = resultCd === '000' ? 'It is succeeded' : 'refused'): Answer {
  return { json: { resultCd, resultMsg, resultDt: '20261206123008', data } };
}

export async function startFakeKra(): Promise<FakeKra> {
  const calls: Recorded[] = [];
  const answers = new Map<string, Answer | ((call: Recorded) => Answer)>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call: Recorded = {
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0]!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      calls.push(call);
      const name = call.path.split('/').pop() ?? '';
      const found = answers.get(name) ?? envelope('000');
      const answer = typeof found === 'function' ? found(call) : found;
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      res.end(answer.text ?? JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    answer: (path, answer) => void answers.set(path, answer),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
