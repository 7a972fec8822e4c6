// Which receiver URLs may be registered (and are re-checked before every attempt).
// Production: https, a public hostname (no IP literal, no trailing dot, no local-only name),
// port 80/443/8080/8443, no credentials. Development also accepts http and loopback
// receivers (127.0.0.0/8, ::1, localhost) on any port, so a local receiver can be used.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { GatewayEnv } from '../../../platform/config.ts';
import { bareHost } from './address-guard.ts';

const ALLOWED_PORTS = [80, 443, 8080, 8443] as const;

// Names that never lead to a public receiver (RFC 6761/6762/8375 and common private zones).
const LOCAL_ONLY_SUFFIXES = [
  '.localhost',
  '.local',
  '.internal',
  '.localdomain',
  '.home.arpa',
  '.arpa',
  '.invalid',
  '.test',
  '.onion',
  '.lan',
  '.intranet',
  '.corp',
];

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 0) return false;
  return ipaddr.process(host).range() === 'loopback';
}

/** Problems with a receiver URL under the given environment's rules; empty when acceptable. */
export function urlProblems(raw: string, env: GatewayEnv): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ['The url must be an absolute URL, such as https://example.com/webhooks.'];
  }
  const problems: string[] = [];
  const host = bareHost(url.hostname);
  const loopbackAllowed = env === 'development' && isLoopbackHost(host);

  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && env === 'development')) {
    problems.push(env === 'production' ? 'The url must use https.' : 'The url must use https (or http in development).');
  }
  if (url.username !== '' || url.password !== '') problems.push('The url must not contain a user name or password.');
  if (url.hash !== '') problems.push('The url must not contain a fragment (#…).');
  if (host.endsWith('.')) problems.push("The url's hostname must not end with a dot.");

  if (!loopbackAllowed) {
    // WHATWG parsing has already turned 2130706433, 0x7f000001 and 0177.0.0.1 into 127.0.0.1.
    if (isIP(host) !== 0) problems.push('The url must name a public hostname, not an IP address.');
    else if (!host.includes('.') || LOCAL_ONLY_SUFFIXES.some((s) => `.${host.replace(/\.$/, '')}`.endsWith(s))) {
      problems.push('The url must name a public hostname.');
    }
    const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
    if (!(ALLOWED_PORTS as readonly number[]).includes(port)) problems.push(`The url's port must be one of ${ALLOWED_PORTS.join(', ')}.`);
  }
  return problems;
}
