import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { guardHost, pinnedLookup, refusalOf, type Resolver } from '../../../src/domain/partner/webhooks/address-guard.ts';
import { urlProblems } from '../../../src/domain/partner/webhooks/url-rules.ts';

const production = { allowLoopback: false };
const development = { allowLoopback: true };

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const failsWith =
  (code: string): Resolver =>
  async (host) => {
    throw Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code });
  };

/** The host a URL names after WHATWG parsing, which is what the sender guards. */
const hostOf = (url: string) => new URL(url).hostname;

describe('address guard', () => {
  test('public unicast addresses pass', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001::200e']) {
      assert.equal(refusalOf(address, production), undefined, address);
    }
  });

  test('every special-purpose range is refused', () => {
    const refused = {
      '127.0.0.1': 'loopback',
      '10.0.0.1': 'private',
      '172.16.5.4': 'private',
      '192.168.0.1': 'private',
      '169.254.169.254': 'linkLocal',
      '100.64.0.1': 'carrierGradeNat',
      '0.0.0.0': 'unspecified',
      '255.255.255.255': 'broadcast',
      '224.0.0.1': 'multicast',
      '240.0.0.1': 'reserved',
      '192.0.2.10': 'reserved',
      '::1': 'loopback',
      '::': 'unspecified',
      'fe80::1': 'linkLocal',
      'fc00::1': 'uniqueLocal',
      'fd00:ec2::254': 'uniqueLocal',
      'ff02::1': 'multicast',
      '2001:db8::1': 'reserved',
    };
    for (const [address, range] of Object.entries(refused)) {
      const reason = refusalOf(address, production);
      assert.ok(reason?.includes(range), `${address}: ${reason}`);
    }
  });

  test('decimal, hex and octal IPv4 literals are normalised by URL parsing and refused', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://017700000001/']) {
      assert.equal(hostOf(url), '127.0.0.1', url);
      const result = await guardHost(hostOf(url), production, resolvesTo('93.184.216.34'));
      assert.equal(result.ok, false, url);
      assert.equal(result.ok === false && result.terminal, true);
    }
  });

  test('IPv4-mapped and IPv4-compatible IPv6 forms are unwrapped and refused', async () => {
    for (const url of [
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::a9fe:a9fe]/',
    ]) {
      const result = await guardHost(hostOf(url), production, resolvesTo());
      assert.equal(result.ok, false, url);
    }
    assert.match(String(refusalOf('::ffff:10.0.0.1', production)), /private/);
    assert.match(String(refusalOf('::a9fe:a9fe', production)), /IPv4-compatible.*169\.254\.169\.254/);
  });

  test('NAT64, 6to4 and Teredo addresses are refused, naming the IPv4 address they embed', () => {
    assert.match(String(refusalOf('64:ff9b::7f00:1', production)), /NAT64.*127\.0\.0\.1/);
    assert.match(String(refusalOf('64:ff9b::808:808', production)), /NAT64/);
    assert.match(String(refusalOf('2002:7f00:1::1', production)), /6to4.*127\.0\.0\.1/);
    // Teredo carries the client address inverted in its last 32 bits: 80ff:fffe is 127.0.0.1.
    assert.match(String(refusalOf('2001:0:4136:e378:8000:63bf:80ff:fffe', production)), /Teredo.*127\.0\.0\.1/);
  });

  test('the unspecified addresses 0.0.0.0 and :: are refused as literals', async () => {
    for (const host of ['0.0.0.0', '[::]']) assert.equal((await guardHost(host, development, resolvesTo())).ok, false, host);
  });

  test('a name resolving to 127.0.0.1 is refused in production, allowed in development', async () => {
    const prod = await guardHost('hooks.example.com', production, resolvesTo('127.0.0.1'));
    assert.equal(prod.ok, false);
    assert.equal(prod.ok === false && prod.terminal, true);
    assert.match(prod.ok === false ? prod.reason : '', /loopback/);
    const dev = await guardHost('hooks.example.com', development, resolvesTo('127.0.0.1'));
    assert.deepEqual(dev, { ok: true, address: { address: '127.0.0.1', family: 4 } });
  });

  test('development allows loopback only: private and link-local stay refused', async () => {
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00::1', '64:ff9b::7f00:1']) {
      assert.equal((await guardHost('hooks.example.com', development, resolvesTo(address))).ok, false, address);
    }
    assert.equal((await guardHost('[::ffff:127.0.0.1]', development, resolvesTo())).ok, true);
  });

  test('mixed answers, one public and one private, are refused', async () => {
    const result = await guardHost('hooks.example.com', production, resolvesTo('93.184.216.34', '10.0.0.7'));
    assert.equal(result.ok, false);
    assert.match(result.ok === false ? result.reason : '', /10\.0\.0\.7/);
  });

  test('a name that does not resolve is terminal; a transient resolver error is retryable', async () => {
    const gone = await guardHost('gone.example.com', production, failsWith('ENOTFOUND'));
    assert.equal(gone.ok === false && gone.terminal, true);
    assert.equal(gone.ok === false && gone.reason, 'the hostname gone.example.com does not resolve (ENOTFOUND)');
    const empty = await guardHost('empty.example.com', production, resolvesTo());
    assert.equal(empty.ok === false && empty.reason, 'the hostname empty.example.com does not resolve (no addresses)');
    const flaky = await guardHost('flaky.example.com', production, failsWith('EAI_AGAIN'));
    assert.equal(flaky.ok, false);
    assert.equal(flaky.ok === false && flaky.terminal, false);
  });

  test('"no longer resolves" only for a name known to have resolved before; "does not resolve" for one that never did', async () => {
    const asked: string[] = [];
    const history = (before: boolean) => async () => {
      asked.push('asked');
      return before;
    };
    const moved = await guardHost('moved.example.com', production, failsWith('ENOTFOUND'), undefined, history(true));
    assert.equal(
      moved.ok === false && moved.reason,
      'the hostname moved.example.com no longer resolves (ENOTFOUND); earlier deliveries reached a receiver there',
    );
    const typo = await guardHost('hoooks.example.com', production, failsWith('ENOTFOUND'), undefined, history(false));
    assert.equal(typo.ok === false && typo.reason, 'the hostname hoooks.example.com does not resolve (ENOTFOUND)');
    asked.length = 0;
    assert.equal((await guardHost('hooks.example.com', production, resolvesTo('93.184.216.34'), undefined, history(true))).ok, true);
    assert.deepEqual(asked, [], 'the history is asked only when the name gives no address');
  });

  test('a resolver that hangs past the deadline is a retryable failure', async () => {
    const hangs: Resolver = () => new Promise(() => {});
    const deadline = new AbortController();
    setTimeout(() => deadline.abort(), 20);
    const result = await guardHost('slow.example.com', production, hangs, deadline.signal);
    assert.equal(result.ok === false && !result.terminal, true);
  });

  test('a trailing dot is refused, at registration and at send time', async () => {
    assert.equal((await guardHost('localhost.', development, resolvesTo('127.0.0.1'))).ok, false);
    assert.ok(urlProblems('https://hooks.example.com./x', 'production').length > 0);
    assert.ok(urlProblems('http://localhost./x', 'development').length > 0);
  });

  test('URL rules refuse credentials and ports other than 80, 443, 8080, 8443 (redirects: see delivery.test.ts)', () => {
    assert.ok(urlProblems('https://user:pw@hooks.example.com/', 'production').some((p) => /user name or password/.test(p)));
    assert.ok(urlProblems('https://hooks.example.com:22/', 'production').some((p) => /port/.test(p)));
    assert.deepEqual(urlProblems('https://hooks.example.com:8080/', 'production'), []);
  });

  test('the pinned lookup answers with the checked address whatever it is asked, in both callback forms', async () => {
    const lookup = pinnedLookup({ address: '93.184.216.34', family: 4 });
    const all = await new Promise<LookupAddress[]>((resolve) =>
      lookup('other.example.com', { all: true }, ((_e: unknown, a: LookupAddress[]) => resolve(a)) as never),
    );
    assert.deepEqual(all, [{ address: '93.184.216.34', family: 4 }]);
    const one = await new Promise<[string, number]>((resolve) =>
      lookup('other.example.com', {}, (_e, a, f) => resolve([a as string, f as number])),
    );
    assert.deepEqual(one, ['93.184.216.34', 4]);
  });
});
