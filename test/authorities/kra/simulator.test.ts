// The KRA adapter against the simulator's KRA profiles over real sockets: initialisation and the
// cmcKey, a sale with every letter (tax-inclusive and -exclusive, discounts) accepted by the
// simulator's own arithmetic, a lost reply adopted through the lookup, a credit note, VSCU's
// training sale and lookup, the code table's rates, and the token gateway.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkKraSaleArithmetic, kraControl, startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { createAuthorities, type Authorities } from '../../../src/authorities/index.ts';
import type { AuthorityDevice } from '../../../src/authorities/port/device.ts';
import type { FiscalDocument } from '../../../src/authorities/port/filing.ts';
import type { SaleLineInput } from '../../../src/authorities/port/amounts.ts';
import { buildKraSaleBody } from '../../../src/authorities/kra-etims/sales-body.ts';
import { KRA_SETTINGS } from '../../../src/authorities/kra-etims/settings.ts';
import { kraSale } from './helpers.ts';

let sim: Simulator;
let authorities: Authorities;
before(async () => {
  sim = await startSimulator({ port: 0 });
  authorities = createAuthorities({ transport: { timeoutMs: 3_000 } });
});
after(async () => {
  await authorities.close();
  await sim.close();
});

let pins = Math.floor(Math.random() * 1_000_000);
const freshPin = (): string => `P${String(++pins).padStart(9, '0')}K`;

async function control(method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${sim.origin}/_sim${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

/** A KRA device of the profile, initialised through the adapter. */
async function installed(profile: 'kra-oscu' | 'kra-vscu'): Promise<AuthorityDevice> {
  const device: AuthorityDevice = {
    profile,
    baseUrl: profile === 'kra-oscu' ? `${sim.urlOf(profile)}/etims-api` : sim.urlOf(profile),
    tpin: freshPin(),
    branch: '00',
  };
  const init = await authorities.of(profile).device.initialise(device, `SN-${device.tpin}`);
  assert.equal(init.kind, 'ok', JSON.stringify(init));
  if (init.kind !== 'ok') throw new Error('init');
  return { ...device, sdcId: init.device.sdcId, mrcNo: init.device.mrcNo, unitKey: init.device.unitKey ?? null };
}

const EVERY_LETTER: SaleLineInput[] = ['A', 'B', 'C', 'D', 'E'].map((vatCategory, i) => ({
  name: `Line ${vatCategory}`,
  classificationCode: '5059690800',
  itemCode: 'KE1NTXU0000001',
  quantity: i + 1,
  price: '33.33',
  vatCategory,
  discount: i % 2 === 0 ? '3.33' : null,
}));

const sale = (over: Partial<FiscalDocument>): FiscalDocument =>
  kraSale({ occurredAt: new Date(), customer: { tpin: 'A123456789Z', name: 'Buyer Ltd' }, ...over });

describe('KRA OSCU', () => {
  test('initialisation gives the cmcKey; a second is already installed; verify accepts the key and refuses another', async () => {
    const device = await installed('kra-oscu');
    const oscu = authorities.of('kra-oscu');
    assert.match(device.unitKey ?? '', /.{8,}/);
    assert.equal((await oscu.device.initialise(device, `SN-${device.tpin}`)).kind, 'already_installed');
    assert.deepEqual(await oscu.device.verify(device), { kind: 'ok' });
    const wrong = await oscu.device.verify({ ...device, unitKey: 'not-the-key' });
    assert.equal(wrong.kind === 'rejected' && wrong.code, '901');
    assert.equal(wrong.kind === 'rejected' && wrong.message.includes(device.unitKey!), false);
  });

  test('every letter, tax-inclusive and -exclusive with discounts, is accepted and filed as built', async () => {
    const device = await installed('kra-oscu');
    const oscu = authorities.of('kra-oscu');
    for (const [invoiceNo, taxInclusive] of [
      [1, true],
      [2, false],
    ] as const) {
      const doc = sale({ invoiceNo, taxInclusive, lines: EVERY_LETTER });
      const filed = await oscu.filing.file(device, doc);
      assert.equal(filed.kind, 'ok', JSON.stringify(filed));
      if (filed.kind !== 'ok') return;
      assert.deepEqual([filed.receipt.receiptNo, filed.receipt.totalReceiptNo, filed.receipt.sdcId], [invoiceNo, invoiceNo, device.sdcId]);
      assert.match(
        filed.receipt.qrCodeUrl ?? '',
        new RegExp(`^https://etims-sbx\\.kra\\.go\\.ke/.*Data=${device.tpin}00${filed.receipt.receiptSignature}$`),
      );
      const stored = kraControl(sim, 'kra-oscu')
        .filed(device.tpin, '00')
        .find((d) => d.invcNo === invoiceNo)!;
      assert.deepEqual(stored.body, buildKraSaleBody('oscu', KRA_SETTINGS.oscu, doc));
    }
  });

  test('a lost reply: filed again it is a duplicate (994), and the lookup finds the receipt with its total', async () => {
    const device = await installed('kra-oscu');
    const oscu = authorities.of('kra-oscu');
    assert.equal(await control('PUT', `/profiles/kra-oscu/devices/${device.tpin}/00/faults`, { loseReplies: 1 }), 200);
    const doc = sale({ invoiceNo: 1, taxInclusive: true, lines: EVERY_LETTER });
    const lost = await oscu.filing.file(device, doc);
    assert.equal(lost.kind, 'unreachable');
    assert.deepEqual(await oscu.filing.file(device, doc), { kind: 'duplicate', code: '994', message: 'It is overlapped data' });
    const found = await oscu.filing.findFiled(device, { invoiceNo: 1, salesType: 'normal' });
    assert.equal(found.kind, 'ok', JSON.stringify(found));
    if (found.kind !== 'ok') return;
    const computed = oscu.arithmetic.computeSale(EVERY_LETTER, true);
    assert.equal(found.total, computed.totals.total);
    const receipt = kraControl(sim, 'kra-oscu').filed(device.tpin, '00')[0]!.receipt;
    assert.deepEqual(
      [found.receipt.receiptNo, found.receipt.internalData, found.receipt.receiptSignature],
      [receipt.curRcptNo, receipt.intrlData, receipt.rcptSign],
    );
    assert.deepEqual(await oscu.filing.findFiled(device, { invoiceNo: 2, salesType: 'normal' }), { kind: 'empty' });
  });

  test("a credit note against the original invcNo; another customer's PIN is refused", async () => {
    const device = await installed('kra-oscu');
    const oscu = authorities.of('kra-oscu');
    const lines = EVERY_LETTER.slice(1, 2);
    assert.equal((await oscu.filing.file(device, sale({ invoiceNo: 1, taxInclusive: true, lines }))).kind, 'ok');
    const line = oscu.arithmetic.computeSale(lines, true).lines[0]!;
    const credit = (customer: FiscalDocument['customer'], invoiceNo: number) =>
      sale({
        type: 'credit_note',
        invoiceNo,
        taxInclusive: true,
        reasonCode: '06',
        customer,
        original: { invoiceNo: 1, receiptNo: 1, sdcId: device.sdcId ?? null },
        lines: [
          {
            ...lines[0]!,
            allocated: { amount: line.grossAmount, discount: line.discountAmount, net: line.taxableAmount, vat: line.vatAmount },
          },
        ],
      });
    const other = await oscu.filing.file(device, credit({ tpin: 'B123456789Z', name: 'Other' }, 2));
    assert.equal(other.kind === 'rejected' && other.code, '910');
    const filed = await oscu.filing.file(device, credit({ tpin: 'A123456789Z', name: 'Buyer Ltd' }, 3));
    assert.equal(filed.kind, 'ok', JSON.stringify(filed));
    assert.equal(filed.kind === 'ok' && filed.receipt.totalReceiptNo, 2);
  });

  test("the code table's class 04 rates are the profile's", async () => {
    const device = await installed('kra-oscu');
    const codes = await authorities.of('kra-oscu').catalogue.codes(device, null);
    assert.equal(codes.kind, 'ok');
    const rates = codes.kind === 'ok' ? codes.records.filter((c) => c.classCode === '04').map((c) => [c.code, c.rate]) : [];
    assert.deepEqual(
      rates,
      authorities.of('kra-oscu').profile.taxCategories.map((c) => [c.code, c.rate]),
    );
  });

  test('behind the token gateway: a token fetched with the client credential, then every call carries it', async () => {
    const device = await installed('kra-oscu');
    assert.equal(
      await control('PUT', '/profiles/kra-oscu/settings', {
        oauth: { clientId: 'consumer', clientSecret: 'secret-1', accessToken: 'gava-token' },
      }),
      200,
    );
    try {
      const oscu = authorities.of('kra-oscu');
      const withClient = {
        ...device,
        apiCredential: {
          kind: 'client' as const,
          clientId: 'consumer',
          clientSecret: 'secret-1',
          tokenUrl: `${sim.urlOf('kra-oscu')}/v1/token/generate`,
        },
      };
      assert.deepEqual(await oscu.device.verify(withClient), { kind: 'ok' });
      assert.equal((await oscu.filing.file(withClient, sale({ invoiceNo: 1, lines: EVERY_LETTER }))).kind, 'ok');
      const without = await oscu.device.verify(device);
      assert.equal(without.kind, 'rejected');
      const wrongSecret = await oscu.device.verify({
        ...device,
        apiCredential: { ...withClient.apiCredential, clientSecret: 'wrong', clientId: 'someone' },
      });
      assert.equal(wrongSecret.kind === 'rejected' && wrongSecret.message.includes('wrong'), false);
    } finally {
      await control('PUT', '/profiles/kra-oscu/settings', { oauth: null });
    }
  });
});

describe('KRA VSCU', () => {
  test('a normal and a training sale, and the lookup of a filed one', async () => {
    const device = await installed('kra-vscu');
    const vscu = authorities.of('kra-vscu');
    const normal = await vscu.filing.file(device, sale({ invoiceNo: 1, taxInclusive: true, lines: EVERY_LETTER }));
    assert.equal(normal.kind, 'ok', JSON.stringify(normal));
    const training = await vscu.filing.file(
      device,
      sale({ invoiceNo: 2, salesType: 'training', taxInclusive: false, lines: EVERY_LETTER }),
    );
    assert.equal(training.kind, 'ok', JSON.stringify(training));
    if (normal.kind !== 'ok') return;
    assert.equal(normal.receipt.sdcId, device.sdcId);
    const found = await vscu.filing.findFiled(device, { invoiceNo: 1, salesType: 'normal' });
    assert.equal(found.kind === 'ok' && found.receipt.receiptSignature, normal.receipt.receiptSignature);
    const filed = kraControl(sim, 'kra-vscu')
      .filed(device.tpin, '00')
      .map((d) => [d.invcNo, d.salesTyCd ?? 'N']);
    assert.deepEqual(filed, [
      [1, 'N'],
      [2, 'T'],
    ]);
  });
});

describe("KRA arithmetic against the simulator's own check", () => {
  const lineArb: fc.Arbitrary<SaleLineInput> = fc
    .record({
      quantity: fc.integer({ min: 1, max: 100_000 }).map((thousandths) => thousandths / 1000),
      price: fc.integer({ min: 1, max: 10_000_000 }).map((c) => c / 100),
      vatCategory: fc.constantFrom('A', 'B', 'C', 'D', 'E'),
      discountShare: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1000 })),
    })
    .map(({ quantity, price, vatCategory, discountShare }) => {
      const gross = Math.round(quantity * price * 100) / 100;
      const discount = Math.floor(gross * discountShare) / 1000;
      return {
        name: 'Item',
        classificationCode: '5059690800',
        quantity,
        price,
        vatCategory,
        discount: discount > 0 ? Number(discount.toFixed(2)) : null,
      };
    });

  test('every body the adapter builds passes checkKraSaleArithmetic; a few are filed', async () => {
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 10 }), fc.boolean(), (lines, taxInclusive) => {
        const body = buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale({ lines, taxInclusive }));
        assert.equal(checkKraSaleArithmetic(body), null);
      }),
      { numRuns: 400 },
    );
    const device = await installed('kra-oscu');
    const samples = fc.sample(fc.tuple(fc.array(lineArb, { minLength: 1, maxLength: 6 }), fc.boolean()), { numRuns: 10, seed: 47 });
    for (const [i, [lines, taxInclusive]] of samples.entries()) {
      const filed = await authorities.of('kra-oscu').filing.file(device, sale({ invoiceNo: i + 1, lines, taxInclusive }));
      assert.equal(filed.kind, 'ok', JSON.stringify(filed));
    }
  });
});
