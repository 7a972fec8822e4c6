import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enqueueEvent } from '../../../src/domain/kernel/outbox/events.ts';
import { createRetentionWorker } from '../../../src/domain/partner/webhooks/retention-worker.ts';
import { ManualClock, seedMerchant, startTestApp, type TestApp } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { deliveryRows, invoice, registerEndpoint } from './helpers.ts';
import { eventually } from '../../helpers/poll.ts';

const DAY = 86_400_000;

describe(`webhook events and retention (${engineName})`, () => {
  let t: TestApp;
  const clock = new ManualClock();
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  test('an event enqueued in a transaction that rolls back leaves no event and no delivery', async () => {
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: 'https://hooks.example.com/tx' });
    let eventId = '';
    await assert.rejects(
      t.ctx.db.transaction().execute(async (trx) => {
        ({ eventId } = await enqueueEvent(trx, {
          type: 'invoice.fiscalised',
          partnerId: merchant.partner.partnerId,
          tenantId: merchant.tenant.id,
          data: { invoice: invoice(1) },
        }));
        throw new Error('the sale update failed');
      }),
      /the sale update failed/,
    );
    assert.ok(eventId);
    assert.equal(await t.ctx.db.selectFrom('webhook_events').select('id').where('id', '=', eventId).executeTakeFirst(), undefined);
    assert.deepEqual(await deliveryRows(t.ctx, endpoint.id), []);
  });

  test('the stored body is the envelope serialised once; event ids are ULIDs in creation order', async () => {
    const merchant = await seedMerchant(t.ctx);
    const created = new Date('2025-01-02T03:04:05.678Z');
    const first = await enqueueEvent(t.ctx.db, {
      type: 'invoice.failed',
      partnerId: merchant.partner.partnerId,
      tenantId: merchant.tenant.id,
      data: { invoice: invoice(2, 'failed') },
      created,
    });
    const second = await enqueueEvent(t.ctx.db, {
      type: 'invoice.failed',
      partnerId: merchant.partner.partnerId,
      tenantId: merchant.tenant.id,
      data: { invoice: invoice(3, 'failed') },
      created,
    });
    assert.match(first.eventId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(second.eventId > first.eventId);
    const row = await t.ctx.db.selectFrom('webhook_events').selectAll().where('id', '=', first.eventId).executeTakeFirstOrThrow();
    assert.equal(
      row.body,
      JSON.stringify({
        id: first.eventId,
        event: 'invoice.failed',
        created: '2025-01-02T03:04:05.678Z',
        data: { invoice: invoice(2, 'failed') },
      }),
    );
  });

  test('deliveries and events older than 90 days are deleted; newer ones are kept', async () => {
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: 'https://hooks.example.com/old' });
    const now = clock.now();
    const fire = (created: Date) =>
      enqueueEvent(t.ctx.db, {
        type: 'invoice.fiscalised',
        partnerId: merchant.partner.partnerId,
        tenantId: merchant.tenant.id,
        data: { invoice: invoice(4) },
        created,
      });
    const old = await fire(new Date(now.getTime() - 91 * DAY));
    const recent = await fire(new Date(now.getTime() - 89 * DAY));
    const oldWithoutDeliveries = await enqueueEvent(t.ctx.db, {
      type: 'invoice.fiscalised',
      partnerId: null,
      tenantId: merchant.tenant.id,
      data: {},
      created: new Date(now.getTime() - 91 * DAY),
    });

    const worker = createRetentionWorker(t.ctx);
    worker.start();
    try {
      await eventually(async () => (await deliveryRows(t.ctx, endpoint.id)).length === 1, 'the old rows to go');
    } finally {
      await worker.stop();
    }
    const [kept] = await deliveryRows(t.ctx, endpoint.id);
    assert.equal(kept?.event_id, recent.eventId);
    const events = await t.ctx.db
      .selectFrom('webhook_events')
      .select('id')
      .where('id', 'in', [old.eventId, recent.eventId, oldWithoutDeliveries.eventId])
      .execute();
    assert.deepEqual(
      events.map((e) => e.id),
      [recent.eventId],
    );
  });
});
