// The walk's session with the gateway (walk.ts runs the checklist's sections through it): each call
// to the gateway's HTTP API with the credential it needs (the partner key, the merchant's token,
// the user's session, the operator token), the waits for its workers and for a VSDC call, the
// simulator's seeding, and each item run and recorded with its evidence.
import { CHECKLIST_ITEMS } from './checklist.ts';
import type { RecordedCall, Recorder } from './recorder.ts';

export interface WalkSettings {
  gatewayUrl: string;
  partnerKey: string;
  adminToken: string;
  recorder: Recorder;
  tpin: string;
  branch: string;
  serial: string;
  /** The built-in simulator's control API root (`…/_sim`), when certify runs it. */
  simulatorControl: string | undefined;
  /** The TPIN the branch customer is registered with. */
  customerTpin: string;
  /** How long one item may wait for the gateway's workers. */
  timeoutMs: number;
}

export interface ItemResult {
  no: number;
  ok: boolean;
  /** What was done and seen, for the report. */
  notes: string[];
  /** Why it failed. */
  why: string | null;
  /** The recorded VSDC calls made while the item ran (seq numbers). */
  calls: number[];
  ms: number;
}

/** The device as the walk learns it (item 1). */
export interface WalkDevice {
  sdcId: string | null;
  mrcNo: string | null;
  tenantId: number | null;
  taxpayerName: string | null;
}

/** What each section of the walk (walk-setup.ts, walk-goods.ts, walk-documents.ts, walk-records.ts) works with. */
export interface Walk {
  session: ReturnType<typeof walkSession>;
  settings: WalkSettings;
  device: WalkDevice;
}

class CheckFailed extends Error {}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
  bytes: Buffer;
}

export type Json = Record<string, unknown>;

export const get = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>(
    (at, key) => (at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[key] : undefined),
    value,
  );

export function expect(condition: unknown, why: string): asserts condition {
  if (!condition) throw new CheckFailed(why);
}

/** The credentials the items obtain on the way (the merchant's token, the user's session), which later calls send. */
interface WalkCredentials {
  tenantToken: string;
  session: { cookie: string; csrf: string } | undefined;
}

/** The session's calls and the items' runner, over `settings`; `results` fills as the items run. */
export function walkSession(settings: WalkSettings) {
  const { gatewayUrl, recorder, tpin, branch } = settings;
  const credentials: WalkCredentials = { tenantToken: '', session: undefined };

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; auth?: 'partner' | 'tenant' | 'session' | 'admin' | 'none'; accept?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    const auth = options.auth ?? 'tenant';
    if (auth === 'partner') headers.authorization = `Bearer ${settings.partnerKey}`;
    if (auth === 'tenant') headers.authorization = `Bearer ${credentials.tenantToken}`;
    if (auth === 'admin') headers.authorization = `Bearer ${settings.adminToken}`;
    if (auth === 'session' && credentials.session) {
      headers.cookie = credentials.session.cookie;
      if (method !== 'GET') headers['x-csrf-token'] = credentials.session.csrf;
    }
    if (options.accept) headers.accept = options.accept;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (auth !== 'partner' && auth !== 'admin' && path.startsWith('/api/v1/') && !path.startsWith('/api/v1/account/'))
      headers['x-branch'] = branch;
    const response = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(text);
    return { status: response.status, headers: response.headers, body, text, bytes };
  }

  /** The answer's `data`, or a failure quoting the gateway's error. */
  async function data(
    method: string,
    path: string,
    options: Parameters<typeof call>[2] & { status?: number | number[] } = {},
  ): Promise<Json> {
    const answer = await call(method, path, options);
    const wanted = options.status ?? (method === 'POST' ? [200, 201] : [200]);
    const ok = Array.isArray(wanted) ? wanted.includes(answer.status) : answer.status === wanted;
    expect(ok, `${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    return get(answer.body, 'data') as Json;
  }

  /** Reads `path` until `done` holds, within the item's time. */
  async function until(path: string, done: (value: Json) => boolean, what: string, auth: 'tenant' | 'session' = 'tenant'): Promise<Json> {
    const deadline = Date.now() + settings.timeoutMs;
    let last: Json | undefined;
    for (;;) {
      last = await data('GET', path, { auth });
      if (done(last)) return last;
      if (Date.now() > deadline)
        throw new CheckFailed(
          `${what}: not reached within ${settings.timeoutMs / 1000} s; last seen: ${JSON.stringify(last).slice(0, 400)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  /** Waits for a VSDC call of the certified branch to `endpoint` that was answered (000, or 001 for a select). */
  async function answeredCall(endpoint: string, what: string): Promise<void> {
    const deadline = Date.now() + settings.timeoutMs;
    while (
      !ourCalls().some((c) => c.endpoint === endpoint && (c.resultCd === '000' || (endpoint.startsWith('select') && c.resultCd === '001')))
    ) {
      if (Date.now() > deadline) throw new CheckFailed(`${what}: no answered ${endpoint} call within ${settings.timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  const ourCalls = () => recorder.calls.filter((c) => c.tpin === tpin && c.bhfId === branch);

  async function seed(path: string, body: unknown): Promise<void> {
    const response = await fetch(`${settings.simulatorControl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.ok, `the simulator's control API answered ${response.status} to ${path}: ${await response.text()}`);
  }

  const results = new Map<number, ItemResult>();
  async function item(no: number, run: (notes: string[]) => Promise<void>): Promise<void> {
    const notes: string[] = [];
    const firstCall = recorder.calls.length;
    const started = Date.now();
    let why: string | null = null;
    try {
      await run(notes);
    } catch (err) {
      why = err instanceof CheckFailed ? err.message : `unexpected: ${(err as Error).stack ?? String(err)}`;
    }
    // Its evidence: the calls it made to its endpoints (background pulls at the same time are
    // not), or, for what a worker did before it ran (the code tables), the first answered ones.
    const endpoints = new Set<string>(CHECKLIST_ITEMS.find((i) => i.no === no)!.endpoints);
    const relevant = (c: RecordedCall) => c.tpin === tpin && endpoints.has(c.endpoint);
    let calls = recorder.calls
      .slice(firstCall)
      .filter(relevant)
      .map((c) => c.seq);
    if (calls.length === 0)
      calls = ourCalls()
        .filter((c) => relevant(c) && (c.resultCd === '000' || c.resultCd === '001'))
        .slice(0, 1)
        .map((c) => c.seq);
    results.set(no, { no, ok: why === null, notes, why, calls, ms: Date.now() - started });
  }
  const passed = (no: number) => results.get(no)?.ok === true;
  const needs = (...nos: number[]) => {
    const missing = nos.filter((no) => !passed(no));
    expect(missing.length === 0, `needs item${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which failed`);
  };

  return { credentials, results, call, data, until, answeredCall, ourCalls, seed, item, needs };
}
