// The send-time address guard: resolve a receiver's hostname once, refuse it unless every
// answer is a global unicast address, and hand back a lookup that pins the connection to the
// checked answer (so DNS rebinding between check and connect cannot move it).
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

interface GuardPolicy {
  /** Development only: allow loopback receivers (a local test receiver). */
  allowLoopback: boolean;
}

/** Resolves a hostname to every A/AAAA answer, as `dns.promises.lookup(host, {all: true})` does. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

type GuardResult =
  | { ok: true; address: LookupAddress }
  /** `terminal`: refused or the name gives no address (no retries); otherwise a transient resolver failure. */
  | { ok: false; terminal: boolean; reason: string };

/** Whether the name is known to have resolved before (a receiver answered at it); asked only when it gives no address. */
export type ResolvedBefore = () => Promise<boolean>;

type IPv6 = ipaddr.IPv6;
type IPv4 = ipaddr.IPv4;

function v4FromBytes(bytes: number[]): IPv4 {
  return new ipaddr.IPv4(bytes.slice(0, 4));
}

/** The IPv4 address an IPv6 transition form carries, and the form's name. */
function embeddedIPv4(v6: IPv6): { form: string; v4: IPv4 } | undefined {
  const b = v6.toByteArray();
  const range = v6.range();
  if (range === 'ipv4Mapped') return { form: 'IPv4-mapped', v4: v6.toIPv4Address() };
  if (range === 'rfc6052') return { form: 'NAT64', v4: v4FromBytes(b.slice(12)) };
  if (range === '6to4') return { form: '6to4', v4: v4FromBytes(b.slice(2, 6)) };
  // Teredo carries the client's address inverted in the last 32 bits.
  if (range === 'teredo') return { form: 'Teredo', v4: v4FromBytes(b.slice(12).map((x) => x ^ 0xff)) };
  // Deprecated IPv4-compatible form ::a.b.c.d (first 96 bits zero), other than :: and ::1.
  if (b.slice(0, 12).every((x) => x === 0) && (b[12]! | b[13]!) !== 0) return { form: 'IPv4-compatible', v4: v4FromBytes(b.slice(12)) };
  return undefined;
}

/**
 * Why an address may not receive webhooks, or undefined when it may. Only global unicast is
 * allowed; every IPv6 form that embeds an IPv4 address is refused, naming the embedded address.
 */
export function refusalOf(address: string, policy: GuardPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4(parsed as IPv6);
    if (embedded) {
      const inner = embedded.v4.range();
      // ::ffff:127.0.0.1 is plain loopback to the kernel; treat it exactly as 127.0.0.1.
      if (embedded.form === 'IPv4-mapped') return refusalOf(embedded.v4.toString(), policy);
      return `${address} is a ${embedded.form} address embedding ${embedded.v4.toString()} (${inner}); IPv6 transition addresses are not allowed`;
    }
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  return `${address} is a ${range} address, not a public one`;
}

/** Strips the brackets WHATWG URL keeps around IPv6 literals. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

const TERMINAL_DNS_CODES = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * Resolves `hostname` (a URL's `hostname`) once and checks every answer. An IP literal is
 * checked as it is. A name that does not exist is terminal; a resolver hiccup is retryable.
 * A name that gives no address "no longer resolves" only when `resolvedBefore` says it did;
 * otherwise it "does not resolve" (it may never have: a typo, a zone not yet published).
 */
export async function guardHost(
  hostname: string,
  policy: GuardPolicy,
  resolve: Resolver = systemResolver,
  signal?: AbortSignal,
  resolvedBefore?: ResolvedBefore,
): Promise<GuardResult> {
  const host = bareHost(hostname);
  if (host.endsWith('.')) return { ok: false, terminal: true, reason: `the hostname ${hostname} ends with a dot` };
  const family = isIP(host);
  if (family !== 0) {
    const refusal = refusalOf(host, policy);
    return refusal ? { ok: false, terminal: true, reason: refusal } : { ok: true, address: { address: host, family } };
  }

  let answers: LookupAddress[];
  try {
    answers = await abortable(resolve(host), signal);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && TERMINAL_DNS_CODES.has(code)) return unresolved(host, code, resolvedBefore);
    if (signal?.aborted) return { ok: false, terminal: false, reason: `resolving ${host} timed out` };
    return { ok: false, terminal: false, reason: `resolving ${host} failed (${typeof code === 'string' ? code : String(err)})` };
  }
  if (answers.length === 0) return unresolved(host, 'no addresses', resolvedBefore);
  for (const answer of answers) {
    const refusal = refusalOf(answer.address, policy);
    if (refusal) return { ok: false, terminal: true, reason: `${host} resolves to a refused address: ${refusal}` };
  }
  return { ok: true, address: answers[0]! };
}

async function unresolved(host: string, detail: string, resolvedBefore: ResolvedBefore | undefined): Promise<GuardResult> {
  const reason = (await resolvedBefore?.())
    ? `the hostname ${host} no longer resolves (${detail}); earlier deliveries reached a receiver there`
    : `the hostname ${host} does not resolve (${detail})`;
  return { ok: false, terminal: true, reason };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * A `lookup` for net/tls connect that answers only with the checked address, whatever name it
 * is asked for. Node's connect asks with `{all: true}` and then expects an array.
 */
export function pinnedLookup(address: LookupAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
}
