import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/platform/config.ts';
import { closeContext, createContext } from '../../../src/domain/kernel/context.ts';
import { openDatabase } from '../../../src/platform/db/database.ts';
import { decideAlarm } from '../../../src/domain/partner/alarms/decide.ts';
import { evaluateBacklogAlarms } from '../../../src/domain/partner/alarms/evaluate.ts';
import { createBacklogAlarmWorker } from '../../../src/domain/partner/alarms/worker.ts';
import { verifyWebhook } from '../../../packages/client/src/webhooks.ts';
import type { Worker } from '../../../src/platform/workers/index.ts';
import { engineName, onPostgres } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { Receiver } from '../webhooks/helpers.ts';
import { eventually } from '../../helpers/poll.ts';
import { alarmsReceived, alarmsStored, subscribeToAlarms } from './helpers.ts';

const HOUR = 3_600_000;
const later = (ms: number) => new Date(Date.now() + ms);

describe('BACKLOG_ALARM_AGES', () => {
  test('defaults to 1 h, 12 h and 24 h; takes ascending whole seconds; refuses anything else naming the variable', () => {
    assert.deepEqual(loadConfig({}).backlogAlarmAgesSec, [3600, 43200, 86400]);
    assert.deepEqual(loadConfig({ BACKLOG_ALARM_AGES: ' 600, 7200 ' }).backlogAlarmAgesSec, [600, 7200]);
    for (const bad of ['0', '60,30', '60,60', '1h', '-5', '1.5']) {
      assert.throws(
        () => loadConfig({ BACKLOG_ALARM_AGES: bad }),
        (err: unknown) => err instanceof ConfigError && err.variable === 'BACKLOG_ALARM_AGES',
        bad,
      );
    }
  });
});

describe('alarm rules', () => {
  const ages = [3600, 43200, 86400];
  test('each threshold once per episode, the highest reached, and recovery when the episode drains', () => {
    const none = { kind: 'none' };
    assert.deepEqual(decideAlarm({ openThresholdSec: null, episodeStillPending: false, oldestAgeSec: null }, ages), none);
    assert.deepEqual(decideAlarm({ openThresholdSec: null, episodeStillPending: false, oldestAgeSec: 3599 }, ages), none);
    assert.deepEqual(decideAlarm({ openThresholdSec: null, episodeStillPending: false, oldestAgeSec: 3600 }, ages), {
      kind: 'backlog',
      thresholdSec: 3600,
    });
    assert.deepEqual(decideAlarm({ openThresholdSec: 3600, episodeStillPending: true, oldestAgeSec: 40000 }, ages), none);
    assert.deepEqual(decideAlarm({ openThresholdSec: 3600, episodeStillPending: true, oldestAgeSec: 90000 }, ages), {
      kind: 'backlog',
      thresholdSec: 86400,
    });
    assert.deepEqual(decideAlarm({ openThresholdSec: 86400, episodeStillPending: true, oldestAgeSec: 900000 }, ages), none);
    assert.deepEqual(decideAlarm({ openThresholdSec: 3600, episodeStillPending: false, oldestAgeSec: null }, ages), { kind: 'recovered' });
    assert.deepEqual(
      decideAlarm({ openThresholdSec: 3600, episodeStillPending: false, oldestAgeSec: 10 }, ages),
      { kind: 'recovered' },
      'new documents after the outage do not prolong it',
    );
  });
});

describe(`backlog alarms (${engineName})`, () => {
  let h: Harness;
  const down = () => h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
  const up = () => h.sim.control.clearFaults(h.merchant.tpin, '000');
  const stored = () => alarmsStored(h.ctx, h.merchant.tenantId);

  async function queueWhileDown(): Promise<number> {
    down();
    const res = await h.post('/api/v1/sales', saleBody());
    assert.equal(res.json().data.status, 'pending');
    await eventually(async () => {
      const q = await h.ctx.db
        .selectFrom('filing_queues as q')
        .innerJoin('devices as d', 'd.id', 'q.device_id')
        .select('q.last_error')
        .where('d.tenant_id', '=', h.merchant.tenantId)
        .executeTakeFirst();
      return q?.last_error ?? undefined;
    }, 'the filer to record the outage');
    return res.json().data.id;
  }

  async function drain(saleId: number): Promise<void> {
    up();
    await eventually(
      async () => ((await h.get(`/api/v1/sales/${saleId}`)).json().data.status === 'uploaded' ? true : undefined),
      'the backlog to drain',
    );
  }

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 200 } });
  });
  after(() => h.close());

  test('an episode fires 1 h, 12 h and 24 h once each, then branch.recovered once', async () => {
    const saleId = await queueWhileDown();
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(0)), { backlog: 0, recovered: 0 }, 'a fresh backlog is no alarm');

    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(HOUR + 1_000)), { backlog: 1, recovered: 0 });
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(2 * HOUR)), { backlog: 0, recovered: 0 }, 'once per threshold');
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(13 * HOUR)), { backlog: 1, recovered: 0 });
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(25 * HOUR)), { backlog: 1, recovered: 0 });
    assert.deepEqual(
      await evaluateBacklogAlarms(h.ctx, later(48 * HOUR)),
      { backlog: 0, recovered: 0 },
      'nothing after the last threshold',
    );

    const alarms = await stored();
    assert.deepEqual(
      alarms.map((e) => [e.event, e.data.backlog.thresholdSeconds]),
      [
        ['branch.backlog', 3600],
        ['branch.backlog', 43200],
        ['branch.backlog', 86400],
      ],
    );
    const first = alarms[0]!;
    assert.equal(first.data.branch.tenantId, h.merchant.tenantId);
    assert.equal(first.data.branch.tpin, h.merchant.tpin);
    assert.equal(first.data.branch.branch, '000');
    assert.match(first.data.branch.sdcId ?? '', /^SDC/);
    assert.equal(first.data.backlog.pending, 1);
    assert.equal(first.data.backlog.nextThresholdSeconds, 43200);
    assert.ok((first.data.backlog.oldestPendingAgeSeconds as number) >= 3600);
    assert.equal(typeof first.data.backlog.lastError, 'string', 'why the branch is stuck');
    assert.equal(alarms[2]!.data.backlog.nextThresholdSeconds, null);

    await drain(saleId);
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(49 * HOUR)), { backlog: 0, recovered: 1 });
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(50 * HOUR)), { backlog: 0, recovered: 0 });
    const recovered = (await stored()).at(-1)!;
    assert.equal(recovered.event, 'branch.recovered');
    assert.equal(recovered.data.backlog.lastThresholdSeconds, 86400);
    assert.equal(recovered.data.backlog.pending, 0);
    assert.ok(recovered.data.backlog.episodeStartedAt);

    // Events dated in the future (the injected time) are due then, so delivery is checked by
    // the worker test below, which runs in real time.
  });

  test('a new episode fires again from the first threshold; a late pass fires only the highest reached', async () => {
    const before = (await stored()).length;
    const first = await queueWhileDown();
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(25 * HOUR)), { backlog: 1, recovered: 0 });
    const fired = (await stored()).slice(before);
    assert.deepEqual(
      fired.map((e) => [e.event, e.data.backlog.thresholdSeconds]),
      [['branch.backlog', 86400]],
    );
    await drain(first);
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(26 * HOUR)), { backlog: 0, recovered: 1 });

    const second = await queueWhileDown();
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(HOUR + 1_000)), { backlog: 1, recovered: 0 });
    assert.equal((await stored()).at(-1)!.data.backlog.thresholdSeconds, 3600);
    await drain(second);
    assert.deepEqual(await evaluateBacklogAlarms(h.ctx, later(2 * HOUR)), { backlog: 0, recovered: 1 });
  });

  test('passes racing in several processes fire each alarm exactly once', async () => {
    const before = (await stored()).length;
    const saleId = await queueWhileDown();
    const contexts = [h.ctx];
    const extra: Array<() => Promise<void>> = [];
    if (onPostgres) {
      for (let i = 0; i < 2; i++) {
        const database = await openDatabase({ databaseUrl: h.t.testDb.url!, poolSize: 4 });
        const ctx = createContext(h.ctx.config, database);
        contexts.push(ctx);
        extra.push(async () => {
          await closeContext(ctx);
          await database.close();
        });
      }
    }
    try {
      const at = later(HOUR + 1_000);
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => evaluateBacklogAlarms(contexts[i % contexts.length]!, at)));
      assert.equal(
        results.reduce((n, r) => n + r.backlog, 0),
        1,
      );
      assert.equal((await stored()).length, before + 1);
      await drain(saleId);
      const recoveries = await Promise.all(
        Array.from({ length: 6 }, (_, i) => evaluateBacklogAlarms(contexts[i % contexts.length]!, later(2 * HOUR))),
      );
      assert.equal(
        recoveries.reduce((n, r) => n + r.recovered, 0),
        1,
      );
    } finally {
      for (const close of extra) await close();
    }
  });
});

describe(`the backlog alarm worker with short thresholds (${engineName})`, () => {
  let h: Harness;
  let receiver: Receiver;
  let worker: Worker;
  let endpoint: { id: number; secret: string };

  before(async () => {
    receiver = await new Receiver().start();
    h = await startHarness({ config: { saleWaitMs: 200, backlogAlarmAgesSec: [1, 2] } });
    endpoint = await subscribeToAlarms(h.t, h.ctx, h.merchant.partnerSecret, receiver);
    worker = createBacklogAlarmWorker(h.ctx, { intervalMs: 100 });
    worker.start();
  });
  after(async () => {
    await worker.stop();
    await h.close();
    await receiver.close();
  });

  test('fires as the backlog ages and recovers when it drains, signed and delivered like every event', async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const sale = await h.post('/api/v1/sales', saleBody());
    assert.equal(sale.json().data.status, 'pending');
    await eventually(() => alarmsReceived(receiver).length >= 2, 'both thresholds', 20_000);
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    const events = await eventually(
      () => {
        const got = alarmsReceived(receiver);
        return got.some((e) => e.event === 'branch.recovered') ? got : undefined;
      },
      'branch.recovered',
      20_000,
    );
    assert.deepEqual(
      events.map((e) => [e.event, e.data.backlog.thresholdSeconds ?? e.data.backlog.lastThresholdSeconds]),
      [
        ['branch.backlog', 1],
        ['branch.backlog', 2],
        ['branch.recovered', 2],
      ],
    );
    for (const request of receiver.requests.filter((r) => String(r.headers['x-webhook-event']).startsWith('branch.'))) {
      const check = verifyWebhook({
        payload: Buffer.from(request.body),
        header: request.headers['x-service-signature'],
        secret: endpoint.secret,
      });
      assert.equal(check.ok, true, 'signed with the endpoint secret');
      assert.equal(request.headers['x-webhook-id'], JSON.parse(request.body).id);
    }
  });
});
