import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import { expectCoded, expectInvalid, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';
import { customerRetryWorker } from '../../../src/domain/merchant/customers/worker.ts';
import { eventually } from '../../helpers/poll.ts';

const KNOWN_TPIN = '2000000001'; // the simulator's register: Lusaka Trading Limited
const UNKNOWN_TPIN = '2999999999';

describe(`customers (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
  });
  after(async () => {
    await h.close();
  });

  const branchCustomers = (tpin: string) =>
    (h.sim.control.getDevice(tpin, '000')?.branchCustomers ?? []) as Array<{ custNo: string; custTpin: string; custNm: string }>;

  test('a customer with a known TPIN is verified and registered on the branch', async () => {
    const m = h.as(h.merchant);
    const created = expectStatus(
      await m.post('/api/v1/customers', { name: 'Lusaka Trading', tpin: KNOWN_TPIN, phone: '0977123456' }),
      201,
    ).data;
    assert.equal(created.tpin, KNOWN_TPIN);
    assert.equal(created.branch, '000');
    assert.equal(created.verification.state, 'verified');
    assert.equal(created.verification.authorityName, 'Lusaka Trading Limited');
    assert.equal(created.verification.resultCode, '000');
    assert.ok(created.verification.checkedAt);
    assert.equal(created.registration.state, 'registered');
    assert.ok(created.registration.registeredAt);
    assert.equal(created.registration.nextAttemptAt, null);

    const onBranch = branchCustomers(h.merchant.tpin).find((c) => c.custTpin === KNOWN_TPIN);
    assert.ok(onBranch, 'the authority holds it on the branch list');
    assert.equal(onBranch.custNm, 'Lusaka Trading');

    assert.deepEqual(expectStatus(await m.get(`/api/v1/customers/${created.id}`), 200).data, created);
  });

  test('a customer without a TPIN is a local record, never sent to the authority', async () => {
    const m = h.as(h.merchant);
    const before = branchCustomers(h.merchant.tpin).length;
    const local = expectStatus(
      await m.post('/api/v1/customers', { name: 'Walk-in Mary', tpin: null, email: 'mary@example.com' }),
      201,
    ).data;
    assert.equal(local.tpin, null);
    assert.equal(local.branch, null);
    assert.equal(local.verification.state, 'not_applicable');
    assert.equal(local.registration.state, 'not_applicable');
    assert.equal(branchCustomers(h.merchant.tpin).length, before);
    // Another local customer of the same name is a separate record.
    const twin = expectStatus(await m.post('/api/v1/customers', { name: 'Walk-in Mary' }), 201).data;
    assert.notEqual(twin.id, local.id);
  });

  test('verification and registration are separate facts: an unknown TPIN is still registered', async () => {
    const created = expectStatus(await h.as(h.merchant).post('/api/v1/customers', { name: 'New Taxpayer', tpin: UNKNOWN_TPIN }), 201).data;
    assert.equal(created.verification.state, 'unknown');
    assert.equal(created.verification.resultCode, '001');
    assert.equal(created.verification.authorityName, null);
    assert.equal(created.registration.state, 'registered');
  });

  test('registration refused while verification succeeds, and the reverse', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);

    h.sim.control.setFaults(merchant.tpin, '000', {
      forcedResult: { code: '999', message: 'Customer list is locked', endpoints: ['saveBrancheCustomers'] },
    });
    const refused = expectStatus(await m.post('/api/v1/customers', { name: 'Copperbelt', tpin: '2000000002' }), 201).data;
    assert.equal(refused.verification.state, 'verified');
    assert.equal(refused.verification.authorityName, 'Copperbelt Mining Supplies Limited');
    assert.equal(refused.registration.state, 'failed');
    assert.equal(refused.registration.resultCode, '999');
    assert.equal(refused.registration.message, 'Customer list is locked');
    assert.equal(refused.registration.nextAttemptAt, null, 'a refusal is final, not retried');
    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: null });

    h.sim.control.setFaults(merchant.tpin, '000', {
      forcedResult: { code: '910', message: 'Request parameter error', endpoints: ['selectCustomer'] },
    });
    const unverified = expectStatus(await m.post('/api/v1/customers', { name: 'Zambezi Agro', tpin: '2000000003' }), 201).data;
    assert.equal(unverified.verification.state, 'failed');
    assert.equal(unverified.verification.resultCode, '910');
    assert.equal(unverified.verification.message, 'Request parameter error');
    assert.equal(unverified.registration.state, 'registered');
    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: null });
  });

  test('an unreachable VSDC leaves both facts pending; the worker retries them until they settle', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    const pending = expectStatus(await m.post('/api/v1/customers', { name: 'Kafue Fisheries', tpin: '2000000004' }), 201).data;
    assert.equal(pending.verification.state, 'pending');
    assert.equal(pending.registration.state, 'pending');
    assert.ok(pending.verification.nextAttemptAt && pending.registration.nextAttemptAt);
    assert.match(pending.registration.lastError, /connection_reset|connection/);

    // The VSDC answers again but cannot reach the authority (838): still pending, still retried.
    h.sim.control.setFaults(merchant.tpin, '000', { down: false, forcedResult: '838' });
    h.startWorkers([(ctx) => customerRetryWorker(ctx, { pollMs: 50 })]);
    await eventually(async () => {
      const c = expectStatus(await m.get(`/api/v1/customers/${pending.id}`), 200).data;
      return c.registration.state === 'pending' && c.verification.state === 'pending' && c.registration.lastError?.includes('838')
        ? c
        : undefined;
    }, 'a retry that met 838');

    h.sim.control.clearFaults(merchant.tpin, '000');
    const settled = await eventually(async () => {
      const c = expectStatus(await m.get(`/api/v1/customers/${pending.id}`), 200).data;
      return c.verification.state !== 'pending' && c.registration.state !== 'pending' ? c : undefined;
    }, 'the retried customer');
    assert.equal(settled.verification.state, 'verified');
    assert.equal(settled.registration.state, 'registered');
    assert.equal(settled.registration.lastError, null);
    assert.ok(branchCustomers(merchant.tpin).some((c) => c.custTpin === '2000000004'));
    await h.stopWorkers();
  });

  test('a TPIN the merchant already has returns the existing customer, unchanged', async () => {
    const m = h.as(h.merchant);
    const first = expectStatus(await m.post('/api/v1/customers', { name: 'Chipata Hardware', tpin: '2000000005' }), 201).data;
    const again = await m.post('/api/v1/customers', { name: 'Another name', tpin: '2000000005' });
    const existing = expectStatus(again, 200).data;
    assert.equal(existing.id, first.id);
    assert.equal(existing.name, 'Chipata Hardware');
    // Concurrent creates of one TPIN make one customer.
    const results = await Promise.all([1, 2, 3].map(() => m.post('/api/v1/customers', { name: 'Ndola Pharma', tpin: '2000000006' })));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 200, 201]);
    assert.equal(new Set(results.map((r) => r.json().data.id)).size, 1);
  });

  test('find by TPIN or by part of the name, paginated', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);
    for (let i = 0; i < 21; i++)
      expectStatus(await m.post('/api/v1/customers', { name: `Shop ${String(i).padStart(2, '0')} Kabwata` }), 201);
    expectStatus(await m.post('/api/v1/customers', { name: 'Lusaka Trading', tpin: KNOWN_TPIN }), 201);

    const page1 = expectStatus(await m.get('/api/v1/customers'), 200);
    assert.equal(page1.data.length, 20);
    assert.deepEqual(page1.meta, { page: 1, perPage: 20, total: 22, lastPage: 2 });
    assert.equal(page1.data[0].name, 'Lusaka Trading', 'newest first');
    assert.equal(expectStatus(await m.get('/api/v1/customers?page=2'), 200).data.length, 2);

    const byTpin = expectStatus(await m.get(`/api/v1/customers?tpin=${KNOWN_TPIN}`), 200);
    assert.equal(byTpin.meta.total, 1);
    assert.equal(byTpin.data[0].tpin, KNOWN_TPIN);
    assert.equal(expectStatus(await m.get('/api/v1/customers?name=kabwata'), 200).meta.total, 21);
    assert.equal(expectStatus(await m.get('/api/v1/customers?name=shop%2005'), 200).meta.total, 1);
    assert.equal(expectStatus(await m.get('/api/v1/customers?name=100%25'), 200).meta.total, 0, '% is matched literally');
    assert.equal(expectStatus(await m.get('/api/v1/customers?tpin=2000000009'), 200).meta.total, 0);
    expectInvalid(await m.get('/api/v1/customers?tpin=12'), 'tpin');
  });

  test("bad input and branches: 422 in the spec's shapes", async () => {
    const m = h.as(h.merchant);
    expectInvalid(await m.post('/api/v1/customers', { tpin: KNOWN_TPIN }), 'name');
    expectInvalid(await m.post('/api/v1/customers', { name: 'X', tpin: '12345' }), 'tpin');
    expectInvalid(await m.post('/api/v1/customers', { name: 'X', email: 'not-an-email' }), 'email');
    expectInvalid(await m.post('/api/v1/customers', { name: 'x'.repeat(61) }), 'name');
    expectCoded(await m.post('/api/v1/customers', { name: 'X', tpin: '2000000001' }, { 'x-branch': '007' }), 422, 'branch_not_found');
    expectCoded(await m.post('/api/v1/customers', { name: 'X' }, { 'x-branch': '007' }), 422, 'branch_not_found');

    const uninitialised = await h.addMerchant({ branches: ['000'], initialize: false });
    expectCoded(await h.as(uninitialised).post('/api/v1/customers', { name: 'X', tpin: KNOWN_TPIN }), 422, 'branch_not_initialized');
    expectStatus(await h.as(uninitialised).post('/api/v1/customers', { name: 'Local is fine' }), 201);
  });

  test("another merchant's customer is not found", async () => {
    const mine = expectStatus(await h.as(h.merchant).post('/api/v1/customers', { name: 'Mine only' }), 201).data;
    const other = h.as(await h.addMerchant({ branches: ['000'] }));
    assert.equal((await other.get(`/api/v1/customers/${mine.id}`)).statusCode, 404);
    assert.equal(expectStatus(await other.get('/api/v1/customers?name=Mine%20only'), 200).meta.total, 0);
    assert.equal((await other.get('/api/v1/customers/999999999')).statusCode, 404);
    assert.equal((await other.get('/api/v1/customers/abc')).statusCode, 404);
  });
});
