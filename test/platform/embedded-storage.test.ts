// test-database: embedded only
// The embedded database's own disk (docs/deployment.md, "When the disk fills"; issue 45 §2): a
// real `serve` on a small tmpfs the test mounts, the disk filled past DATA_DIR_MIN_FREE_MB —
// writes refused with 507 `storage_full` before any invoice number is taken, reads go on,
// `/readyz`, the log and `/metrics` say so — and space freed again: writes resume in the same
// process with no gap in the invoice numbers. The engine's own disk-full error answered the same
// way, and a data directory that cannot be written or was damaged refused at start (exit 7).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statfsSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { openDatabase } from '../../src/platform/db/database.ts';
import { DataDirUnusableError, EMBEDDED_PG_MAJOR } from '../../src/platform/db/data-dir.ts';
import { lockFilePath } from '../../src/platform/db/data-dir-lock.ts';
import { StorageFullError } from '../../src/platform/db/storage-floor.ts';
import { renderError } from '../../src/platform/http/error-handler.ts';
import { bearer, TEST_ADMIN_TOKEN, TEST_SECRET_KEY } from '../helpers/app.ts';
import { embeddedTemplate } from '../helpers/db.ts';
import { saleBody } from '../helpers/harness.ts';
import { eventually } from '../helpers/poll.ts';
import { baseEnv, runCli, spawnGateway, type SpawnedGateway } from '../helpers/process.ts';
import { listedDocuments, seedEmbeddedShop } from '../helpers/shop.ts';

const MB = 1024 * 1024;
const FLOOR_MB = 32; // the least DATA_DIR_MIN_FREE_MB (config.ts)

/**
 * A tmpfs of `sizeMb` mounted on a new directory under `root`, unmounted by the returned function
 * (call it in a finally). Mounting needs root, as CI runs: without it the test fails saying so.
 */
function mountTmpfs(root: string, name: string, sizeMb: number): { dir: string; unmount: () => void } {
  const dir = join(root, name);
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    const said = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    throw new Error(
      `this test mounts a ${sizeMb} MB tmpfs on ${dir} to fill a disk, which needs root (CI runs as root): mount said: ${said}`,
    );
  }
  return { dir, unmount: () => execFileSync('umount', ['-l', dir], { stdio: 'pipe' }) };
}

const freeBytes = (dir: string) => {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
};

/** Writes a file of real (not sparse) bytes so that `dir`'s disk keeps `leaveBytes` free. */
function fillLeaving(dir: string, file: string, leaveBytes: number): void {
  const size = freeBytes(dir) - leaveBytes;
  assert.ok(size > 0, `${dir} has only ${freeBytes(dir)} bytes free`);
  writeFileSync(file, Buffer.alloc(size, 1));
}

function env(dataDir: string): NodeJS.ProcessEnv {
  return baseEnv({
    GATEWAY_ENV: 'production',
    SECRET_KEY: TEST_SECRET_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DATA_DIR: dataDir,
    DATA_DIR_MIN_FREE_MB: String(FLOOR_MB),
    SALE_WAIT_MS: '0',
  });
}

async function sell(url: string, token: string, price: number): Promise<Response> {
  return fetch(`${url}/api/v1/sales`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', 'x-branch': '000' },
    body: JSON.stringify(saleBody({}, [{ price }])),
  });
}

/** The invoice numbers of every document, through the merchant's API, ascending. */
const invoiceNumbers = async (url: string, token: string) =>
  (await listedDocuments(url, token)).map((d) => d.invoiceNo).sort((a, b) => a - b);

/** Overwrites `bytes` of `file` at `offset`, in place. */
function overwrite(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

const logLines = (gateway: SpawnedGateway, msg: RegExp) =>
  gateway
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; dataDir?: string })
    .filter((line) => msg.test(line.msg));

describe('the embedded database when its disk fills, and other local faults', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'fg-storage-'));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test(
    'below DATA_DIR_MIN_FREE_MB sales are refused with 507 storage_full before any invoice number is taken, reads go on, /readyz, the log and /metrics say so; once space is freed sales resume in the same process with gap-free numbers',
    { timeout: 120_000 },
    async () => {
      const disk = mountTmpfs(root, 'disk', 96);
      const sim: Simulator = await startSimulator({ port: 0 });
      let gateway: SpawnedGateway | undefined;
      try {
        const dataDir = join(disk.dir, 'data');
        const { token } = await seedEmbeddedShop(dataDir, sim);
        gateway = await spawnGateway(env(dataDir));
        const url = gateway.url;
        let sold = 0;
        for (; sold < 3; sold++) assert.equal((await sell(url, token, 10 + sold)).status, 201);

        // Something else fills the disk (a log, a download) to below the floor.
        const filler = join(disk.dir, 'filler');
        fillLeaving(disk.dir, filler, (FLOOR_MB - 4) * MB);
        const refused = await eventually(
          async () => {
            const res = await sell(url, token, 100 + sold);
            if (res.status === 201) sold++; // taken before the next reading of the disk (once a second)
            return res.status === 507 ? res : undefined;
          },
          'a sale refused for want of disk',
          15_000,
        );
        const body = (await refused.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'storage_full');
        assert.ok(body.error.message.includes(`data directory ${dataDir} has `), body.error.message);
        assert.match(body.error.message, /less than DATA_DIR_MIN_FREE_MB \(32 MB\)\. Nothing was stored and no invoice number was used/);
        assert.equal(refused.headers.get('retry-after'), '30');

        // Reads go on; readiness, the log and the gauges say why writes are refused.
        assert.deepEqual(
          await invoiceNumbers(url, token),
          Array.from({ length: sold }, (_, i) => i + 1),
        );
        const ready = await fetch(`${url}/readyz`);
        assert.equal(ready.status, 503);
        const readiness = (await ready.json()) as { error: { code: string; message: string } };
        assert.equal(readiness.error.code, 'not_ready');
        assert.ok(
          readiness.error.message.includes(`Writes are refused: the disk of the embedded database's data directory ${dataDir}`),
          readiness.error.message,
        );
        const metrics = await (await fetch(`${url}/metrics`, { headers: bearer(TEST_ADMIN_TOKEN) })).text();
        assert.match(metrics, /^fiscal_gateway_data_dir_writes_refused 1$/m);
        assert.match(metrics, new RegExp(`^fiscal_gateway_data_dir_min_free_bytes ${FLOOR_MB * MB}$`, 'm'));
        const free = Number(/^fiscal_gateway_data_dir_free_bytes (\d+)$/m.exec(metrics)?.[1]);
        assert.ok(free < FLOOR_MB * MB, `free ${free}`);
        assert.equal((await sell(url, token, 999)).status, 507, 'still refused');
        const warned = logLines(gateway, /^writes are refused/);
        assert.equal(warned.length, 1, 'one warning while refused');
        assert.equal(warned[0]!.level, 40);
        assert.equal(warned[0]!.dataDir, dataDir);

        // Space freed: the same process takes sales again, numbered on from the last one stored.
        rmSync(filler);
        await eventually(
          async () => {
            const res = await sell(url, token, 200 + sold);
            if (res.status === 201) sold++;
            return res.status === 201;
          },
          'a sale taken once space is freed',
          15_000,
        );
        assert.equal(gateway.proc.exitCode, null, 'never restarted');
        assert.equal((await fetch(`${url}/readyz`)).status, 200);
        assert.match(
          await (await fetch(`${url}/metrics`, { headers: bearer(TEST_ADMIN_TOKEN) })).text(),
          /^fiscal_gateway_data_dir_writes_refused 0$/m,
        );
        assert.deepEqual(
          await invoiceNumbers(url, token),
          Array.from({ length: sold }, (_, i) => i + 1),
          'gap-free',
        );
        const resumed = logLines(gateway, /^writes are taken again/);
        assert.equal(resumed.length, 1);
        assert.equal(resumed[0]!.level, 30);
        assert.equal(await gateway.kill('SIGTERM'), 0, gateway.output());
      } finally {
        await gateway?.kill('SIGKILL');
        await sim.close();
        disk.unmount();
      }
    },
  );

  test(
    "the engine's own disk-full error (a table that cannot grow) is a StorageFullError naming the directory: rolled back, the engine usable, writes work again once space is freed",
    { timeout: 60_000 },
    async () => {
      const disk = mountTmpfs(root, 'full', 64);
      try {
        const dataDir = join(disk.dir, 'data');
        const database = await openDatabase({ dataDir, loadDataDir: await embeddedTemplate(), migrate: false });
        try {
          const { db } = database;
          await sql`create table filler_rows (id serial primary key, v text)`.execute(db);
          // A fresh log segment, allocated now by a write: the rows below never need the next one
          // (a log segment the engine cannot allocate hangs it, docs/decisions.md).
          await sql`select pg_switch_wal()`.execute(db);
          await sql`insert into filler_rows (v) values ('first')`.execute(db);
          const filler = join(disk.dir, 'filler');
          fillLeaving(disk.dir, filler, 2 * MB);
          const incompressible = sql`(select string_agg(md5(random()::text || g), '') from generate_series(1, 2000) g)`;
          const count = async () => (await sql<{ n: number }>`select count(*)::int as n from filler_rows`.execute(db)).rows[0]!.n;
          let failure: unknown;
          let before = 0;
          for (let i = 0; i < 200 && failure === undefined; i++) {
            before = await count();
            failure = await db
              .transaction()
              .execute(async (trx) => {
                await sql`insert into filler_rows (v) values ('small')`.execute(trx);
                await sql`insert into filler_rows (v) select ${incompressible} from generate_series(1, 8)`.execute(trx);
              })
              .then(
                () => undefined,
                (err: unknown) => err,
              );
          }
          assert.ok(failure instanceof StorageFullError, `the disk never filled, or another error: ${String(failure)}`);
          assert.ok(failure.message.includes(`data directory ${dataDir} is full`), failure.message);
          const answered = renderError(failure, { id: 'req-1' } as FastifyRequest);
          assert.deepEqual(
            [answered.status, (answered.body as { error: { code: string } }).error.code],
            [507, 'storage_full'],
            'answered as the floor answers',
          );
          assert.equal(await count(), before, 'the failed transaction left nothing, and the engine still answers');
          rmSync(filler);
          await sql`insert into filler_rows (v) select ${incompressible} from generate_series(1, 8)`.execute(db);
        } finally {
          await database.close();
        }
      } finally {
        disk.unmount();
      }
    },
  );

  test('a data directory that cannot be written stops the start with one line and exit 7', { timeout: 60_000 }, async () => {
    const disk = mountTmpfs(root, 'readonly', 64);
    try {
      const dataDir = join(disk.dir, 'data');
      const seeded = await openDatabase({ dataDir, loadDataDir: await embeddedTemplate(), migrate: false });
      await seeded.close();
      execFileSync('mount', ['-o', 'remount,ro', disk.dir], { stdio: 'pipe' });
      for (const dir of [dataDir, join(disk.dir, 'new')]) {
        const start = await runCli(['serve'], env(dir));
        assert.equal(start.code, 7, start.stderr + start.stdout);
        assert.equal(start.stderr.trim().split('\n').length, 1, start.stderr);
        assert.match(
          start.stderr,
          new RegExp(
            `^fiscal-gateway: the embedded database's data directory ${dir} cannot be used: .* cannot be written \\(read-only file system, EROFS\\)`,
          ),
        );
        assert.doesNotMatch(start.stdout, /"msg":"ready"/);
      }
      const notADirectory = join(root, 'a-file');
      writeFileSync(notADirectory, 'x');
      const file = await runCli(['serve'], env(notADirectory));
      assert.equal(file.code, 7, file.stderr);
      assert.match(file.stderr, /is a file, not a directory/);
    } finally {
      disk.unmount();
    }
  });

  test(
    'a damaged data directory is never started on (nor a new database created over it): one line pointing to restore, exit 7',
    { timeout: 120_000 },
    async () => {
      const pristine = join(root, 'pristine');
      const database = await openDatabase({ dataDir: pristine, loadDataDir: await embeddedTemplate(), migrate: false });
      const { rows } = await sql<{
        path: string;
        version: number;
      }>`select pg_relation_filepath('sales') as path, current_setting('server_version_num')::int as version`.execute(database.db);
      await database.close();
      assert.equal(String(Math.floor(rows[0]!.version / 10_000)), EMBEDDED_PG_MAJOR, 'EMBEDDED_PG_MAJOR is the engine the gateway runs');
      const salesFile = rows[0]!.path;
      const damagedCopy = (name: string, damage: (dir: string) => void) => {
        const dataDir = join(root, name);
        cpSync(pristine, dataDir, { recursive: true });
        damage(dataDir);
        return dataDir;
      };

      // The start: a directory that lost its PG_VERSION, which PGlite would take for an empty one and create a new database over.
      const unversioned = damagedCopy('unversioned', (dir) => rmSync(join(dir, 'PG_VERSION')));
      const files = readdirSync(unversioned).sort();
      const start = await runCli(['serve'], env(unversioned));
      assert.equal(start.code, 7, start.stderr + start.stdout);
      assert.equal(start.stderr.trim().split('\n').length, 1, start.stderr);
      assert.ok(
        start.stderr.startsWith(
          `fiscal-gateway: the embedded database in ${unversioned} is damaged (it holds ${files.length} entries (base, global, pg_commit_ts, …) but no PG_VERSION, so no database the gateway can open; a new one is never created over them): the gateway does not start on it. Move it aside and restore the latest backup into a new directory (DATA_DIR=${unversioned}-restored fiscal-gateway restore --from FILE)`,
        ),
        start.stderr,
      );
      assert.doesNotMatch(start.stdout, /"msg":"ready"/);
      assert.deepEqual(readdirSync(unversioned).sort(), files, 'nothing created in it');

      // The other damages, as the opening (every command's) finds them.
      const damages: Array<[string, (dir: string) => void, RegExp]> = [
        [
          'control',
          (dir) => overwrite(join(dir, 'global', 'pg_control'), 100, Buffer.alloc(64, 7)),
          /the engine could not open it: incorrect checksum in control file\)/,
        ],
        ['no-wal', (dir) => rmSync(join(dir, 'pg_wal'), { recursive: true }), /\(pg_wal is missing\)/],
        ['no-sales', (dir) => rmSync(join(dir, salesFile)), new RegExp(`\\(the file ${salesFile} of sales is missing\\)`)],
        [
          'cut-sales',
          (dir) => truncateSync(join(dir, salesFile), 1000),
          new RegExp(`\\(the file ${salesFile} of sales is cut short \\(1000 bytes`),
        ],
        [
          'older',
          (dir) => writeFileSync(join(dir, 'PG_VERSION'), '17\n'),
          /was made by PostgreSQL 17, and this gateway's embedded engine is PostgreSQL 18/,
        ],
      ];
      for (const [name, damage, says] of damages) {
        const dataDir = damagedCopy(name, damage);
        await assert.rejects(openDatabase({ dataDir }), (err: unknown) => {
          assert.ok(err instanceof DataDirUnusableError, `${name}: ${String(err)}`);
          assert.equal(err.problem, 'damaged');
          assert.match(err.message, says, name);
          if (name !== 'older') assert.match(err.message, /restore the latest backup/, name);
          return true;
        });
        assert.equal(existsSync(lockFilePath(dataDir)), false, `${name}: the lock released`);
      }
    },
  );
});
