// `fiscal-gateway backup` / `restore` (docs/deployment.md, "Backup and retention"): an online
// copy of the embedded database taken by the running server, restored into a new data directory
// on which a new server finds every document; the copy taken with no server running; and the
// refusals (PostgreSQL, a non-empty directory, a missing file, nothing to back up).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { developmentKeyFile } from '../../src/credentials/secret-box.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { lockFilePath } from '../../src/platform/db/data-dir-lock.ts';
import { bearer, TEST_ADMIN_TOKEN, TEST_SECRET_KEY } from '../helpers/app.ts';
import { embeddedTemplate, engineName, onPostgres, TEST_DATABASE_URL } from '../helpers/db.ts';
import { saleBody } from '../helpers/harness.ts';
import { baseEnv, runCli, spawnGateway, type SpawnedGateway } from '../helpers/process.ts';
import { listedDocuments, seedEmbeddedShop } from '../helpers/shop.ts';
import { postgresCommands } from '../../src/app/cli/backup.ts';

function env(dataDir: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return baseEnv({
    GATEWAY_ENV: 'production',
    SECRET_KEY: TEST_SECRET_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    ...extra,
  });
}

/** Every document's id through the merchant's API (all branches, every page). */
const documentIds = async (url: string, token: string) => (await listedDocuments(url, token)).map((d) => d.id);

async function sell(url: string, token: string, price: number): Promise<number> {
  const res = await fetch(`${url}/api/v1/sales`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', 'x-branch': '000' },
    body: JSON.stringify(saleBody({}, [{ price }])),
  });
  assert.equal(res.status < 300, true, `${res.status} ${await res.clone().text()}`);
  return ((await res.json()) as { data: { id: number } }).data.id;
}

describe(`backup and restore (${engineName})`, () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'fg-backup-'));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test(
    'an online backup of a running gateway, restored into a new data directory: a new server finds every document',
    { skip: onPostgres ? 'the embedded database only (PostgreSQL: pg_dump, tested below)' : false, timeout: 120_000 },
    async (t) => {
      const t0 = Date.now();
      const mark = (what: string) => t.diagnostic(`${what}: ${Date.now() - t0} ms`);
      const sim: Simulator = await startSimulator({ port: 0 });
      const children: SpawnedGateway[] = [];
      try {
        const dataDir = join(root, 'live');
        const { token } = await seedEmbeddedShop(dataDir, sim, 18);

        mark('seeded');
        const live = await spawnGateway(env(dataDir));
        children.push(live);
        mark('started');
        // Documents made on the running gateway are in the copy too.
        for (let i = 0; i < 3; i++) await sell(live.url, token, 100 + i);
        mark('sold');
        const before = await documentIds(live.url, token);
        assert.equal(before.length, 21, 'two pages of the list');

        // While it runs: without ADMIN_TOKEN the CLI cannot reach the copy (4); the live directory is not restored into (2).
        const noToken = await runCli(['backup', '--out', join(root, 'never.tar.gz'), '--url', live.url], env(dataDir, { ADMIN_TOKEN: '' }));
        assert.equal(noToken.code, 4, noToken.stderr);
        assert.match(noToken.stderr, /held by the running gateway .*ADMIN_TOKEN/);
        assert.equal(existsSync(join(root, 'never.tar.gz')), false);

        mark('refused without token');
        const file = join(root, 'online.tar.gz');
        const backup = await runCli(['backup', '--out', file, '--url', live.url, '--json'], env(dataDir));
        assert.equal(backup.code, 0, backup.stderr + backup.stdout);
        mark('backed up online');
        const taken = JSON.parse(backup.stdout) as { out: string; bytes: number; mode: string; serverPid: number };
        assert.equal(taken.mode, 'online');
        assert.equal(taken.serverPid, live.proc.pid);
        assert.ok(taken.bytes > 1000);
        assert.deepEqual(
          readdirSync(root).filter((f) => f.includes('.partial')),
          [],
          'no partial file left',
        );
        const intoLive = await runCli(['restore', '--from', file], env(dataDir));
        assert.equal(intoLive.code, 2, intoLive.stderr);
        assert.match(intoLive.stderr, /is not empty/);

        // The server went on serving: a sale after the copy is stored (and is not in the copy).
        const later = await sell(live.url, token, 999);
        assert.equal(await live.kill('SIGTERM'), 0, live.output());

        mark('stopped');
        const restoredDir = join(root, 'restored');
        const restore = await runCli(['restore', '--from', file, '--json'], env(restoredDir));
        assert.equal(restore.code, 0, restore.stderr + restore.stdout);
        const restoredCopy = JSON.parse(restore.stdout) as { documents: number; key: { state: string } };
        assert.equal(restoredCopy.documents, before.length);
        assert.equal(restoredCopy.key.state, 'matches', 'the copy records the SECRET_KEY it was sealed with');
        assert.equal(existsSync(lockFilePath(restoredDir)), false, 'the restore released its lock');

        mark('restored');
        const restored = await spawnGateway(env(restoredDir));
        children.push(restored);
        assert.deepEqual(await documentIds(restored.url, token), before, 'every document, by id');
        assert.equal(await restored.kill('SIGTERM'), 0, restored.output());

        mark('listed on the restored');
        // No server running: the CLI takes the lock and copies the directory itself.
        const offlineFile = join(root, 'offline.tar.gz');
        const offline = await runCli(['backup', '--out', offlineFile, '--json'], env(dataDir));
        assert.equal(offline.code, 0, offline.stderr + offline.stdout);
        assert.equal((JSON.parse(offline.stdout) as { mode: string }).mode, 'offline');
        mark('backed up offline');
        const again = await runCli(['restore', '--from', offlineFile, '--json'], env(join(root, 'restored-offline')));
        assert.equal(again.code, 0, again.stderr + again.stdout);
        assert.equal(
          (JSON.parse(again.stdout) as { documents: number }).documents,
          before.length + 1,
          `the sale after the online copy (${later}) too`,
        );
      } finally {
        for (const child of children) await child.kill('SIGKILL');
        await sim.close();
      }
    },
  );

  test(
    'in development, restore puts the key file that sealed the copy beside the restored directory, and serve never makes a new key file for a database sealed by another',
    { skip: onPostgres ? 'the embedded database only' : false, timeout: 120_000 },
    async () => {
      // The walk of docs/deployment.md: `npm start` in a checkout (./data, ./.data.secret-key), a
      // backup, a restore into a directory elsewhere, a `serve` on it; all without SECRET_KEY.
      const checkout = join(root, 'checkout');
      mkdirSync(checkout);
      const devEnv = (dataDir: string) => baseEnv({ GATEWAY_ENV: 'development', ADMIN_TOKEN: TEST_ADMIN_TOKEN, DATA_DIR: dataDir });
      const seeded = await openDatabase({ dataDir: join(checkout, 'data'), loadDataDir: await embeddedTemplate() });
      await seeded.close();
      const children: SpawnedGateway[] = [];
      try {
        const live = await spawnGateway(devEnv('./data'), [], 60_000, checkout);
        children.push(live);
        const sourceKeyFile = join(checkout, '.data.secret-key');
        assert.ok(existsSync(sourceKeyFile), 'the first serve made the development key file and recorded it');
        const file = join(root, 'development.tar.gz');
        const backup = await runCli(['backup', '--out', file, '--url', live.url], devEnv('./data'), checkout);
        assert.equal(backup.code, 0, backup.stderr + backup.stdout);
        assert.equal(await live.kill('SIGTERM'), 0, live.output());

        const restoredDir = join(root, 'elsewhere', 'data-restored');
        const restoredKeyFile = developmentKeyFile(restoredDir);
        const restore = await runCli(['restore', '--from', file], devEnv(restoredDir), checkout);
        assert.equal(restore.code, 0, restore.stderr + restore.stdout);
        assert.ok(
          restore.stdout.includes(`The development key file that sealed its secrets, ${sourceKeyFile}, was copied to ${restoredKeyFile}`),
          restore.stdout,
        );
        assert.equal(readFileSync(restoredKeyFile, 'utf8'), readFileSync(sourceKeyFile, 'utf8'));
        const restored = await spawnGateway(devEnv(restoredDir), [], 60_000, checkout);
        children.push(restored);
        assert.equal(await restored.kill('SIGTERM'), 0, restored.output());

        // Without the key file, serve stops (exit 3) naming the file to copy, and writes no key of its own.
        rmSync(restoredKeyFile);
        const copy = `cp ${sourceKeyFile} ${restoredKeyFile}`;
        const missing = await runCli(['serve'], devEnv(restoredDir), checkout);
        assert.equal(missing.code, 3, missing.stderr + missing.stdout);
        assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
        assert.ok(missing.stderr.includes(copy), missing.stderr);
        assert.equal(existsSync(restoredKeyFile), false, 'no new key file');

        // A wrong key file there (what serve used to make): the line says what to copy, not the CLI's advice.
        writeFileSync(restoredKeyFile, `${'f'.repeat(64)}\n`, { mode: 0o600 });
        const wrong = await runCli(['serve'], devEnv(restoredDir), checkout);
        assert.equal(wrong.code, 3, wrong.stderr + wrong.stdout);
        assert.ok(wrong.stderr.includes(copy), wrong.stderr);
        assert.doesNotMatch(wrong.stderr, /GATEWAY_ENV=production/);
        // Where no key file that fits is found, restore says what to copy and copies nothing.
        const blind = await runCli(
          ['restore', '--from', file, '--json'],
          devEnv(join(root, 'elsewhere', 'blind')),
          join(root, 'elsewhere'),
        );
        assert.equal(blind.code, 0, blind.stderr + blind.stdout);
        const key = (JSON.parse(blind.stdout) as { key: { state: string; line: string } }).key;
        assert.equal(key.state, 'to-copy');
        assert.match(key.line, /copy the development key file of the DATA_DIR the backup was made from/);
        assert.equal(existsSync(developmentKeyFile(join(root, 'elsewhere', 'blind'))), false);
      } finally {
        for (const child of children) await child.kill('SIGKILL');
      }
    },
  );

  test('restore refuses a non-empty data directory, leaving it as it was, and a missing file', async () => {
    const occupied = join(root, 'occupied');
    mkdirSync(occupied, { recursive: true });
    writeFileSync(join(occupied, 'keep.txt'), 'mine');
    const backupFile = join(root, 'some.tar.gz');
    writeFileSync(backupFile, 'not really a backup');
    const refused = await runCli(['restore', '--from', backupFile], env(occupied));
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stderr.trim().split('\n').length, 1, 'one line');
    assert.match(refused.stderr, /^fiscal-gateway: DATA_DIR .*occupied is not empty: restore only into an empty or new directory/);
    assert.deepEqual(readdirSync(occupied), ['keep.txt']);

    const missing = await runCli(['restore', '--from', join(root, 'nowhere.tar.gz')], env(join(root, 'fresh')));
    assert.equal(missing.code, 5, missing.stderr);
    assert.match(missing.stderr, /no backup file/);

    // Not a backup: refused, and the new directory is left absent so that a retry can run.
    const bad = await runCli(['restore', '--from', backupFile], env(join(root, 'fresh-bad')));
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /could not be restored/);
    assert.equal(existsSync(join(root, 'fresh-bad')), false);
  });

  test('backup refuses what it cannot copy: no --out, no database in DATA_DIR', async () => {
    const usage = await runCli(['backup'], env(join(root, 'x')));
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /backup needs --out FILE/);
    const nothing = await runCli(['backup', '--out', join(root, 'x.tar.gz')], env(join(root, 'empty-dir')));
    assert.equal(nothing.code, 5, nothing.stderr);
    assert.match(nothing.stderr, /no embedded database in .*empty-dir/);
    assert.equal(existsSync(join(root, 'empty-dir')), false, 'nothing created');
  });

  test('on PostgreSQL, backup and restore copy nothing: they print the pg_dump and pg_restore commands and exit 2', async () => {
    // The command never connects: any PostgreSQL address will do (the suite's one when it has one).
    const databaseUrl = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/none';
    const out = join(root, 'gateway.dump');
    const backup = await runCli(['backup', '--out', out], env(join(root, 'unused'), { DATABASE_URL: databaseUrl }));
    assert.equal(backup.code, 2, backup.stderr);
    assert.ok(backup.stderr.includes(`pg_dump --format=custom --file=${out} "$DATABASE_URL"`), backup.stderr);
    assert.ok(backup.stderr.includes(`pg_restore --no-owner --dbname="$DATABASE_URL" ${out}`), backup.stderr);
    assert.match(backup.stderr, /nothing was copied/);
    assert.equal(existsSync(out), false);

    // A name made for the embedded copy is suggested as what pg_dump writes: a custom-format dump.
    assert.deepEqual(postgresCommands('/backups/b.tar.gz', 'backup'), {
      dump: 'pg_dump --format=custom --file=/backups/b.dump "$DATABASE_URL"',
      restore: 'pg_restore --no-owner --dbname="$DATABASE_URL" /backups/b.dump',
    });
    assert.equal(
      postgresCommands('/backups/b.tar.gz', 'restore').restore,
      'pg_restore --no-owner --dbname="$DATABASE_URL" /backups/b.tar.gz',
      'a file given to restore is named as it is',
    );

    const restore = await runCli(['restore', '--from', out, '--json'], env(join(root, 'unused'), { DATABASE_URL: databaseUrl }));
    assert.equal(restore.code, 2);
    const error = (JSON.parse(restore.stdout) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'usage');
    assert.ok(error.message.includes(`pg_restore --no-owner --dbname="$DATABASE_URL" ${out}`), error.message);
    assert.equal(existsSync(join(root, 'unused')), false);
  });

  test('--help lists backup and restore', async () => {
    const help = await runCli(['--help'], env(join(root, 'x')));
    assert.equal(help.code, 0);
    assert.match(help.stdout, /backup --out FILE \[--url URL\]/);
    assert.match(help.stdout, /restore --from FILE/);
  });
});
