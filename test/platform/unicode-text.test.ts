// Issue 45 §4: text that is not valid Unicode — an unpaired UTF-16 surrogate escaped in the JSON
// (`"a\ud800b"`, `"Sugar \ud83d"`), or bytes that are not UTF-8 — was a 500 on the sale, item
// and till routes (the database's JSON parser refuses a lone surrogate) and was stored as U+FFFD
// elsewhere (a customer's name filed to the authority that way). Every JSON body is now checked
// while it is parsed: a 422 naming the field, and nothing stored or filed. Over real HTTP, as a
// till sends it; whole characters (an emoji, escaped or not) are still taken and stored exactly.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { engineName } from '../helpers/db.ts';
import { bearer } from '../helpers/app.ts';
import { seedSignedInUser } from '../helpers/accounts.ts';
import { invoiceBody, mintKey, nextNumber, sdcIdOf, tillHeaders, type Till } from '../fiscal/compat/helpers.ts';
import { CLASS_CODE, saleBody, startHarness, type Harness } from '../helpers/harness.ts';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A lone high surrogate as JSON.stringify writes it: the escape `\ud800`, six ASCII characters. */
const LONE = 'a\ud800b';
/** An emoji cut in half, as a till that truncates UTF-16 text sends it. */
const HALF_EMOJI = 'Sugar \ud83d';

describe(`text that is not valid Unicode is a 422 naming the field (${engineName})`, () => {
  let h: Harness;
  let base: string;
  let till: Till;
  let itemCode: string;

  /** Sends `body` as is: a string is encoded as UTF-8, a Buffer goes byte for byte. */
  async function send(
    method: 'POST' | 'PATCH',
    path: string,
    body: string | Buffer,
    headers: Record<string, string> = bearer(h.merchant.token),
  ): Promise<Answer> {
    const res = await request(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body });
    const text = await res.body.text();
    return { status: res.statusCode, body: JSON.parse(text) as Record<string, unknown> };
  }

  /** The stored documents, items and filed documents, to compare before and after a refusal. */
  async function counts() {
    const sales = await h.ctx.db
      .selectFrom('sales')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const items = await h.ctx.db
      .selectFrom('items')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return { sales: Number(sales.n), items: Number(items.n), filed: h.received(h.merchant).length };
  }

  function expectRefused(answer: Answer, field: string, label: string): void {
    assert.equal(answer.status, 422, `${label}: ${JSON.stringify(answer.body)}`);
    const errors = answer.body.errors as Record<string, string[]> | undefined;
    assert.ok(errors && Object.hasOwn(errors, field), `${label}: errors.${field} in ${JSON.stringify(answer.body)}`);
    assert.match(
      errors[field]![0]!,
      new RegExp(`^The ${field.replace(/[.\\]/g, '\\$&')} field is not valid (Unicode|UTF-8) text: .*Send `),
      label,
    );
  }

  before(async () => {
    h = await startHarness();
    base = (await h.t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
    till = { key: (await mintKey(h, h.merchant)).key, sdcId: await sdcIdOf(h, h.merchant) };
    const item = await send('POST', '/api/v1/items', JSON.stringify({ name: 'Cooking oil 20L', itemClsCd: CLASS_CODE }));
    assert.equal(item.status, 201, JSON.stringify(item.body));
    itemCode = (item.body.data as { itemCode: string }).itemCode;
  });
  after(() => h.close());

  test('an escaped lone surrogate in a line name, a customer name or an item name: 422 on every route, nothing stored or filed', async () => {
    const cases: Array<
      [label: string, method: 'POST' | 'PATCH', path: string, body: unknown, field: string, headers?: Record<string, string>]
    > = [
      ['sale line name', 'POST', '/api/v1/sales', saleBody({}, [{ name: LONE }]), 'items.0.name'],
      ['sale line name, half an emoji', 'POST', '/api/v1/sales', saleBody({}, [{}, { name: HALF_EMOJI }]), 'items.1.name'],
      ['sale customer name', 'POST', '/api/v1/sales', saleBody({ customer: { name: HALF_EMOJI } }), 'customer.name'],
      ['a lone low surrogate', 'POST', '/api/v1/sales', saleBody({}, [{ name: '\udc00 Rice' }]), 'items.0.name'],
      [
        'till line name',
        'POST',
        '/zm/api/Invoice',
        invoiceBody(nextNumber(), {}, [{ ItemName: HALF_EMOJI }]),
        'Items.0.ItemName',
        tillHeaders(till),
      ],
      [
        'till customer name',
        'POST',
        '/zm/api/Invoice',
        invoiceBody(nextNumber(), { CustomerName: LONE }),
        'CustomerName',
        tillHeaders(till),
      ],
      ['new item name', 'POST', '/api/v1/items', { name: LONE, itemClsCd: CLASS_CODE }, 'name'],
      ['amended item name', 'PATCH', `/api/v1/items/${itemCode}`, { name: HALF_EMOJI }, 'name'],
    ];
    for (const [label, method, path, body, field, headers] of cases) {
      const before = await counts();
      const text = JSON.stringify(body);
      assert.match(text, /\\ud[89a-f]/, `${label}: JSON.stringify escapes the lone surrogate`);
      expectRefused(await send(method, path, text, headers), field, label);
      assert.deepEqual(await counts(), before, `${label}: nothing stored or filed`);
    }
    const item = await h.get(`/api/v1/items/${itemCode}`);
    assert.equal(item.json().data.name, 'Cooking oil 20L', 'the amended item kept its name');
  });

  test('bytes that are not UTF-8 are refused the same way, not stored as U+FFFD', async () => {
    const before = await counts();
    // "Mwape" then 0xFF 0xFE (never UTF-8), inside the customer's name.
    const [head, tail] = JSON.stringify(saleBody({ customer: { name: 'Mwape@@' } })).split('@@') as [string, string];
    const sale = Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe]), Buffer.from(tail)]);
    expectRefused(await send('POST', '/api/v1/sales', sale), 'customer.name', 'invalid bytes in a sale');
    // A UTF-8 sequence cut short (the first two bytes of "€") in a till's line name.
    const [start, end] = JSON.stringify(invoiceBody(nextNumber(), {}, [{ ItemName: 'Price @@' }])).split('@@') as [string, string];
    const invoice = Buffer.concat([Buffer.from(start), Buffer.from([0xe2, 0x82]), Buffer.from(end)]);
    expectRefused(
      await send('POST', '/zm/api/Invoice', invoice, tillHeaders(till)),
      'Items.0.ItemName',
      'invalid bytes on the till surface',
    );
    // An encoded lone surrogate (CESU-8 style, ED A0 80) is not UTF-8 either.
    const [first, rest] = JSON.stringify({ name: 'Maize @@', itemClsCd: CLASS_CODE }).split('@@') as [string, string];
    const item = Buffer.concat([Buffer.from(first), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(rest)]);
    expectRefused(await send('POST', '/api/v1/items', item), 'name', 'an encoded surrogate');
    assert.deepEqual(await counts(), before, 'nothing stored or filed');
    // Outside any string, such bytes are a body that is not JSON.
    const broken = await send('POST', '/api/v1/sales', Buffer.concat([Buffer.from('{"items":'), Buffer.from([0xff]), Buffer.from('[]}')]));
    assert.equal(broken.status, 400, JSON.stringify(broken.body));
    assert.equal((broken.body.error as { code: string }).code, 'invalid_json');
  });

  test('a key with a lone surrogate is named too, with the surrogate written as its escape', async () => {
    const answer = await send('POST', '/api/v1/sales', JSON.stringify({ ...saleBody(), customer: { ['na\ud800me']: 'Mwape' } }));
    expectRefused(answer, 'customer.na\\ud800me', 'a key');
  });

  test('whole characters, an emoji escaped as its pair or sent as UTF-8, are taken and stored exactly', async () => {
    const escaped = await send(
      'POST',
      '/api/v1/sales',
      JSON.stringify(saleBody({ customer: { name: 'Mwape \ud83d\ude00' } }, [{ name: 'Sugar \u{1F36C}' }])).replace(
        '\u{1F36C}',
        '\\ud83c\\udf6c',
      ),
    );
    assert.equal(escaped.status, 201, JSON.stringify(escaped.body));
    const sale = escaped.body.data as { id: number; customer: { name: string }; items: Array<{ name: string }> };
    assert.equal(sale.items[0]!.name, 'Sugar \u{1F36C}');
    assert.equal(sale.customer.name, 'Mwape \u{1F600}');
    const stored = await h.ctx.db.selectFrom('sale_lines').select('name').where('sale_id', '=', sale.id).executeTakeFirstOrThrow();
    assert.equal(stored.name, 'Sugar \u{1F36C}');
    const item = await send('PATCH', `/api/v1/items/${itemCode}`, JSON.stringify({ name: 'Cooking oil \u{1F6E2}' }));
    assert.equal(item.status, 200, JSON.stringify(item.body));
    assert.equal((item.body.data as { name: string }).name, 'Cooking oil \u{1F6E2}');
  });

  test("a session keeps the client's User-Agent as it was written: UTF-8 read as UTF-8, whole characters only", async () => {
    const { email } = await seedSignedInUser(h.ctx, h.merchant.tenantId);
    // node:http writes a header's characters as one byte each: these are the UTF-8 bytes of the name.
    const signIn = (userAgent: string) =>
      new Promise<number>((resolve, reject) => {
        // A Buffer: with a string body, node:http would write the head in the body's encoding (UTF-8).
        const body = Buffer.from(JSON.stringify({ email, password: 'a long enough password' }));
        const req = http.request(
          `${base}/api/v1/account/signin`,
          { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': Buffer.from(userAgent).toString('latin1') } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const stored = async () => {
      const user = await h.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
      const session = await h.ctx.db
        .selectFrom('user_sessions')
        .select('user_agent')
        .where('user_id', '=', user.id)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(1)
        .executeTakeFirstOrThrow();
      return session.user_agent;
    };
    assert.equal(await signIn('Caisse Lusaka/2.1 (Mwansa Café)'), 200);
    assert.equal(await stored(), 'Caisse Lusaka/2.1 (Mwansa Café)');
    // Cut to 500 characters between two, never inside an emoji's pair.
    assert.equal(await signIn(`${'x'.repeat(499)}\u{1F600}tail`), 200);
    assert.equal(await stored(), `${'x'.repeat(499)}\u{1F600}`);
  });
});
