// Seeding through the gateway's own HTTP API (operator → partner → merchants, devices, tokens),
// so the harness needs nothing from the source tree it measures.
import { request } from 'undici';
import type { RequestPlan } from './load.ts';
import { ADMIN_TOKEN } from './processes.ts';

export async function call<T>(base: string, method: 'GET' | 'POST' | 'PATCH', path: string, secret: string, body?: unknown): Promise<T> {
  const res = await request(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export interface Merchant {
  tenantId: number;
  tpin: string;
  token: string;
}

export interface SeededPartner {
  partnerId: number;
  secret: string;
}

export async function createPartner(base: string, name: string): Promise<SeededPartner> {
  const created = await call<{ data: { partner: { id: number }; key: { secret: string } } }>(
    base,
    'POST',
    '/admin/v1/partners',
    ADMIN_TOKEN,
    { name },
  );
  return { partnerId: created.data.partner.id, secret: created.data.key.secret };
}

async function inBatches<T>(count: number, parallel: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += parallel) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - start) }, (_, k) => make(start + k)))));
  }
  return out;
}

/**
 * `count` merchants of one partner, each with initialised `branches` (default one: 000) on the
 * VSDC at `vsdcUrl`, a tenant token, and no rate limit in the way of the load.
 */
export async function seedMerchants(
  base: string,
  partner: SeededPartner,
  vsdcUrl: string,
  count: number,
  tpinBase: number,
  branches: string[] = ['000'],
  authority: 'zra' | 'kra' = 'zra',
): Promise<Merchant[]> {
  return inBatches(count, 8, async (i) => {
    // A KRA PIN: a letter, 9 digits, a letter.
    const tpin =
      authority === 'kra'
        ? `P${String(tpinBase + i)
            .slice(-9)
            .padStart(9, '0')}K`
        : String(tpinBase + i);
    const tenant = await call<{ data: { id: number } }>(base, 'POST', '/api/v1/tenants', partner.secret, {
      name: `Bench merchant ${i}`,
      tpin,
      authority,
    });
    const id = tenant.data.id;
    await call(base, 'PATCH', `/admin/v1/tenants/${id}`, ADMIN_TOKEN, { rateLimitPerMinute: 1_000_000 });
    for (const branch of branches) {
      await call(base, 'POST', `/api/v1/tenants/${id}/devices`, partner.secret, {
        deviceSerial: branch === '000' ? `BENCH-${tpin}` : `BENCH-${tpin}-${branch}`,
        branch,
        vsdcBaseUrl: vsdcUrl,
      });
      await call(base, 'POST', `/api/v1/tenants/${id}/devices/${branch}/initialize`, partner.secret);
    }
    const token = await call<{ data: { token: string } }>(base, 'POST', `/api/v1/tenants/${id}/tokens`, partner.secret, { name: 'bench' });
    return { tenantId: id, tpin, token: token.data.token };
  });
}

/** A webhook endpoint of the partner (development mode accepts loopback http receivers). */
export async function registerEndpoint(base: string, partner: SeededPartner, url: string): Promise<number> {
  const created = await call<{ endpoint: { id: number } }>(base, 'POST', '/api/v1/webhooks', partner.secret, { url });
  return created.endpoint.id;
}

/** A sale with two lines, as a till would send it. */
export const SALE_BODY = JSON.stringify({
  items: [
    { name: 'Roller mealie meal 25kg', classificationCode: '50221200', quantity: 2, price: 185 },
    { name: 'Fresh bread', classificationCode: '50221200', quantity: 3, price: 24.5, vatCategory: 'D' },
  ],
});

/** The same sale for a Kenyan merchant: KRA's letters (B 16 %, D non-VAT). */
export const KENYAN_SALE_BODY = JSON.stringify({
  items: [
    { name: 'Unga wa ugali 25kg', classificationCode: '50221200', quantity: 2, price: 185 },
    { name: 'Fresh bread', classificationCode: '50221200', quantity: 3, price: 24.5, vatCategory: 'D' },
  ],
});

/** Closed-loop sales spread over `merchants`, each expected to be answered with `status` (`uploaded` by default). */
export function salePlan(
  merchants: Merchant[],
  status: 'uploaded' | 'pending' = 'uploaded',
  authority: 'zra' | 'kra' = 'zra',
): RequestPlan {
  let n = 0;
  const body = authority === 'kra' ? KENYAN_SALE_BODY : SALE_BODY;
  return {
    method: 'POST',
    path: '/api/v1/sales',
    next: () => ({
      headers: { 'content-type': 'application/json', authorization: `Bearer ${merchants[n++ % merchants.length]!.token}` },
      body,
    }),
    verify: (body) => body.includes(`"status":"${status}"`),
  };
}
