// Which key seals the database's secrets (issue 34; docs/deployment.md#secret_key): the first
// process that seals records its key's fingerprint; a `serve` or CLI command with another key
// stops with exit 3 and one line naming SECRET_KEY (with the development key file: the CLI needs
// GATEWAY_ENV=production and SECRET_KEY like the servers); a sealed secret that does not open is
// 503 `secret_unreadable` through the API; a database from before the fingerprint adopts the key
// that opens its secrets and refuses one that opens none. Three child processes on one database,
// which the rest of the file then opens in-process (the tests run in order).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app/app.ts';
import { verifySecretKey } from '../../src/app/secret-key.ts';
import { developmentKeyNote } from '../../src/app/cli/with-context.ts';
import { closeContext, createContext, type AppContext } from '../../src/domain/kernel/context.ts';
import { createPartner, listPartners } from '../../src/domain/partner/provisioning/partners-service.ts';
import { SecretBox, developmentKeyFile } from '../../src/credentials/secret-box.ts';
import { checkSecretKey } from '../../src/credentials/secret-key.ts';
import { ConfigError } from '../../src/platform/config.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import { bearer, testConfig } from '../helpers/app.ts';
import { createPostgresDatabaseUrl, embeddedTemplate, engineName } from '../helpers/db.ts';
import { baseEnv, runCli } from '../helpers/process.ts';

const KEY_A = 'secret-key-a-0123456789abcdef0123456789abcdef';
const KEY_B = 'secret-key-b-0123456789abcdef0123456789abcdef';

describe(`the key that seals the database's secrets (${engineName})`, () => {
  let root: string;
  let dataDir: string;
  let postgres: { url: string; drop(): Promise<void> } | undefined;
  /** The database in-process, once the child processes are done with it. */
  let database: Database | undefined;
  const contexts: AppContext[] = [];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'fg-secret-key-'));
    dataDir = join(root, 'data');
    postgres = await createPostgresDatabaseUrl();
    if (!postgres) await (await openDatabase({ dataDir, loadDataDir: await embeddedTemplate() })).close(); // migrated: no 19 s first migrate
  });
  after(async () => {
    for (const ctx of contexts) await closeContext(ctx);
    await database?.close();
    await postgres?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string | undefined>) =>
    baseEnv({ DATA_DIR: dataDir, DATABASE_URL: postgres?.url, LOG_LEVEL: 'warn', ...extra });
  const production = (secretKey: string) => env({ GATEWAY_ENV: 'production', SECRET_KEY: secretKey });
  const oneLine = (run: { code: number | null; stdout: string; stderr: string }) => {
    assert.equal(run.code, 3, run.stdout + run.stderr);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    return lines[0]!;
  };
  /** A context on the database with `secretKey` (undefined: the development key file beside DATA_DIR), built without the check. */
  const contextWith = async (secretKey: string | undefined): Promise<AppContext> => {
    database ??= postgres ? await openDatabase({ databaseUrl: postgres.url, poolSize: 2 }) : await openDatabase({ dataDir });
    const ctx = createContext(testConfig({ secretKey, dataDir }), database);
    contexts.push(ctx);
    return ctx;
  };

  test('a partner created with key A: key B and the development key file stop with exit 3 naming SECRET_KEY, key A works; the API answers 503 secret_unreadable with key B', async () => {
    const created = await runCli(['partner', 'create', '--name', 'Sealed with A', '--json'], production(KEY_A));
    assert.equal(created.code, 0, created.stdout + created.stderr);
    const { partner, key } = JSON.parse(created.stdout) as { partner: { id: number }; key: { id: number; secret: string } };

    // partners.md's command without GATEWAY_ENV and SECRET_KEY: development, the key file beside
    // DATA_DIR, which it does not make for a database another key sealed.
    const noFile = oneLine(await runCli(['partner', 'list'], env({})));
    assert.match(
      noFile,
      /^fiscal-gateway: configuration: SECRET_KEY: not set, and DATA_DIR has no development key file \(.*\.data\.secret-key\), but this database's secrets were sealed with a key \(recorded by `partner create` at \d{4}-\d\d-\d\dT[\d:]+Z\), which a new key file could not open; the CLI needs the same variables as the servers: GATEWAY_ENV=production and SECRET_KEY \(and DATABASE_URL\)\. `partner list` wrote no key file$/,
    );
    assert.equal(existsSync(developmentKeyFile(dataDir)), false);
    writeFileSync(developmentKeyFile(dataDir), `${'e'.repeat(64)}\n`, { mode: 0o600 }); // one made before, by another command
    const development = oneLine(await runCli(['partner', 'list'], env({})));
    assert.match(
      development,
      /^fiscal-gateway: configuration: SECRET_KEY: not set, so `partner list` used the development key file .*\.data\.secret-key, but this database's secrets were sealed with another key \(recorded by `partner create` at \d{4}-\d\d-\d\dT[\d:]+Z\); the CLI needs the same variables as the servers: GATEWAY_ENV=production and SECRET_KEY/,
    );

    const serve = await runCli(['serve'], production(KEY_B));
    const refused = oneLine(serve);
    assert.match(
      refused,
      /^fiscal-gateway: configuration: SECRET_KEY: this database's secrets were sealed with another key \(recorded by `partner create` at [^)]+\); start every server and CLI command on this database with the SECRET_KEY that sealed them$/,
    );
    assert.doesNotMatch(serve.stdout, /"msg":"ready"|workers running/, 'neither the API nor a worker started');

    // Key A goes on working: the CLI's and the server's check (the compiled CLI with one key
    // throughout: test/platform/process.test.ts), and the read-back below.
    const withA = await contextWith(KEY_A);
    assert.equal(await verifySecretKey(withA, 'partner list', { claim: false }), 'matched');
    assert.equal(await verifySecretKey(withA, 'serve', { claim: true }), 'matched');
    assert.deepEqual(
      (await listPartners(withA.db)).map((p) => p.id),
      [partner.id],
    );

    // A gateway that runs with key B anyway (a context built without the check): the read-back
    // says why it cannot answer, with its code; with key A it answers.
    const readBack = async (secretKey: string) => {
      const app = await buildApp(await contextWith(secretKey), { logger: false });
      try {
        const url = await app.listen({ port: 0, host: '127.0.0.1' });
        const res = await fetch(`${url}/api/v1/partner/keys/${key.id}/secret`, { headers: bearer(key.secret) });
        return { status: res.status, body: (await res.json()) as { data?: { secret: string }; error?: { code: string; message: string } } };
      } finally {
        await app.close();
      }
    };
    const unreadable = await readBack(KEY_B);
    assert.equal(unreadable.status, 503);
    assert.equal(unreadable.body.error?.code, 'secret_unreadable');
    assert.match(unreadable.body.error!.message, /sealed with another SECRET_KEY.*start the gateway with the SECRET_KEY that sealed it/);
    const readable = await readBack(KEY_A);
    assert.equal(readable.status, 200, JSON.stringify(readable.body));
    assert.equal(readable.body.data?.secret, key.secret);
  });

  test('a database from before the fingerprint: the key that opens its sealed secrets is adopted, one that opens none is refused', async () => {
    const db = database!.db;
    await db.deleteFrom('secret_key').execute(); // as migration 0031 finds a database
    const withA = await contextWith(KEY_A);
    const withB = await contextWith(KEY_B);
    await assert.rejects(
      verifySecretKey(withB, 'serve', { claim: true }),
      /SECRET_KEY: this database's secrets were sealed with another key \(none of its 1 newest sealed secrets opens with this one\)/,
    );
    assert.equal(
      await verifySecretKey(withA, 'partner list', { claim: false }),
      'unrecorded',
      'a command that does not seal records nothing',
    );
    assert.equal(await db.selectFrom('secret_key').selectAll().executeTakeFirst(), undefined);
    assert.equal(await verifySecretKey(withA, 'serve', { claim: true }), 'adopted');
    const row = await db.selectFrom('secret_key').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.fingerprint, new SecretBox(KEY_A).fingerprint);
    assert.match(row.recorded_by, /^serve \(adopted/);
    assert.equal(await verifySecretKey(withA, 'tenant list', { claim: false }), 'matched');
    await assert.rejects(verifySecretKey(withB, 'tenant list', { claim: false }), /recorded by `serve \(adopted/);
  });

  test('secrets sealed with the development key file: a server with another key is told to use the file; its contents as SECRET_KEY open them', async () => {
    const db = database!.db;
    await db.deleteFrom('secret_key').execute();
    const development = await contextWith(undefined); // the key file the first test put beside DATA_DIR
    const developmentKey = readFileSync(developmentKeyFile(dataDir), 'utf8').trim();
    const sealedNothingYet = { dataDir, sealedSecrets: async () => [] };
    assert.equal(
      await checkSecretKey(db, development.secretBox, {
        ...sealedNothingYet,
        command: 'partner create',
        claim: true,
        usedDevelopmentKey: true,
      }),
      'recorded',
    );
    await createPartner(db, development.secretBox, { type: 'cli' }, { name: 'Sealed with the development key' });

    const serve = { ...sealedNothingYet, command: 'serve', claim: true, usedDevelopmentKey: false };
    await assert.rejects(checkSecretKey(db, new SecretBox(KEY_A), serve), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, 'SECRET_KEY');
      assert.match(
        err.message,
        /sealed with another key \(recorded by `partner create with the development key file` at [^)]+\); it is the development key file .*\.data\.secret-key \(made by a command run without GATEWAY_ENV=production and SECRET_KEY\): set SECRET_KEY to its contents/,
      );
      return true;
    });
    assert.equal(await checkSecretKey(db, new SecretBox(developmentKey), serve), 'matched');

    // A bare `partner create` that is the first to seal on a PostgreSQL database says so at once.
    const bare = testConfig({ secretKey: undefined, dataDir, databaseUrl: 'postgres://gateway@db.example/fiscal' });
    assert.match(
      developmentKeyNote(bare, 'partner create', 'recorded') ?? '',
      /^note: SECRET_KEY is not set: `partner create` sealed with the development key file .*\.data\.secret-key, which this database now records as the key of its secrets; every server and CLI command on it needs SECRET_KEY set to that file's contents/,
    );
    assert.equal(developmentKeyNote(bare, 'partner create', 'matched'), undefined);
    assert.equal(developmentKeyNote({ ...bare, secretKey: KEY_A }, 'partner create', 'recorded'), undefined);
    assert.equal(
      developmentKeyNote({ ...bare, databaseUrl: undefined }, 'partner create', 'recorded'),
      undefined,
      'the embedded database is the development one',
    );
  });
});
