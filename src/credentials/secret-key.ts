// Which key seals the database's secrets: the database records the fingerprint of the
// secret box's key (SecretBox.fingerprint, table `secret_key`), and a process with another key
// refuses to start (exit 3, naming SECRET_KEY) rather than seal new secrets no server can open,
// or answer 503 `secret_unreadable` on every read-back. src/app/secret-key.ts runs the check for
// `serve` and the CLI commands (it knows the modules' sealed secrets); docs/deployment.md#secret_key.
import type { Kysely } from 'kysely';
import type { DB } from '../platform/db/schema.ts';
import { ConfigError } from '../platform/config.ts';
import { SecretBox, developmentKeyFile, findDevelopmentKeyFile, readDevelopmentKey } from './secret-box.ts';

/** A sealed secret and what it was sealed to (its AAD). */
export interface SealedSecret {
  sealed: string;
  aad: string;
}

export interface SecretKeyCheck {
  /** The command, as the recorded row and the refusal name it (`serve`, `partner create`). */
  command: string;
  /** Records this key when the database records none yet: the processes that seal (`serve`, `partner create`). */
  claim: boolean;
  /** DATA_DIR: where the development key file is (`.<name>.secret-key` beside it). */
  dataDir: string;
  /** This process's key came from the development key file (no SECRET_KEY). */
  usedDevelopmentKey: boolean;
  /** The newest sealed secrets of the database, for one recorded before keys were (migration 0031). */
  sealedSecrets: () => Promise<SealedSecret[]>;
}

/** What the check found: the key recorded already, recorded now, or none recorded and none needed. */
export type SecretKeyOutcome = 'matched' | 'recorded' | 'adopted' | 'unrecorded';

export interface RecordedKey {
  fingerprint: string;
  recorded_by: string;
  recorded_at: Date;
}

export async function recordedKey(db: Kysely<DB>): Promise<RecordedKey | undefined> {
  return db.selectFrom('secret_key').select(['fingerprint', 'recorded_by', 'recorded_at']).executeTakeFirst();
}

/** Records `fingerprint` unless a key is recorded already (two first starts at once: one wins); the recorded one. */
async function recordKey(db: Kysely<DB>, fingerprint: string, recordedBy: string): Promise<RecordedKey> {
  await db
    .insertInto('secret_key')
    .values({ fingerprint, recorded_by: recordedBy })
    .onConflict((oc) => oc.column('singleton').doNothing())
    .execute();
  return (await recordedKey(db))!;
}

/**
 * Compares this process's key with the one the database records, and records it when none is
 * and the process seals (`claim`). Throws a ConfigError naming SECRET_KEY (exit 3) when:
 * - the database records another key;
 * - it records none (made before migration 0031) and holds sealed secrets, none of which this key
 *   opens. When one opens, the key is the one that sealed them: it is adopted (recorded by a
 *   process that claims; the others go on without recording).
 */
export async function checkSecretKey(db: Kysely<DB>, box: SecretBox, check: SecretKeyCheck): Promise<SecretKeyOutcome> {
  const by = `${check.command}${check.usedDevelopmentKey ? ' with the development key file' : ''}`;
  let recorded = await recordedKey(db);
  let outcome: SecretKeyOutcome = 'matched';
  if (!recorded) {
    const sealed = await check.sealedSecrets();
    if (sealed.length > 0 && !opensAny(box, sealed)) {
      throw refusal(check, `none of its ${sealed.length} newest sealed secrets opens with this one`, (other) => opensAny(other, sealed));
    }
    if (!check.claim) return 'unrecorded';
    outcome = sealed.length > 0 ? 'adopted' : 'recorded';
    recorded = await recordKey(
      db,
      box.fingerprint,
      sealed.length > 0 ? `${by} (adopted: it opens the secrets sealed before keys were recorded)` : by,
    );
  }
  if (recorded.fingerprint !== box.fingerprint) {
    const fingerprint = recorded.fingerprint;
    throw refusal(check, recordedWhen(recorded), (other) => other.fingerprint === fingerprint);
  }
  return outcome;
}

const opensAny = (box: SecretBox, sealed: readonly SealedSecret[]) => sealed.some((s) => box.tryOpen(s.sealed, s.aad) !== undefined);

export function recordedWhen(recorded: RecordedKey): string {
  return `recorded by \`${recorded.recorded_by}\` at ${recorded.recorded_at.toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
}

/**
 * What a process without SECRET_KEY is told to do when the database's secrets were sealed by
 * another key than its development key file's (or than a new one): `serve`, in development, is
 * typically on a data directory restored or copied from another DATA_DIR, whose key file stayed
 * there (the `cp` of the one that `fits`, when it is found); a CLI command needs the servers'
 * variables (and, when the key file that fits is found, its `cp` too).
 */
function developmentAdvice(command: string, dataDir: string, fits: (box: SecretBox) => boolean): string {
  const file = developmentKeyFile(dataDir);
  const found = findDevelopmentKeyFile(dataDir, fits);
  if (command === 'serve') {
    const copy = found
      ? `the development key file that sealed them is ${found}: cp ${found} ${file}`
      : `copy the development key file of the DATA_DIR it came from (.<name>.secret-key beside that directory) to ${file}`;
    return `. If this data directory was restored or copied from another, ${copy}; or set SECRET_KEY to the key that sealed them`;
  }
  const inDevelopment = found
    ? `; in development, the key that sealed them is the development key file ${found} (cp ${found} ${file})`
    : '';
  return `; the CLI needs the same variables as the servers: GATEWAY_ENV=production and SECRET_KEY (and DATABASE_URL)${inDevelopment}`;
}

/** `fits`: whether a key is the one that sealed the database's secrets (to name a key file that holds it). */
function refusal(check: SecretKeyCheck, how: string, fits: (box: SecretBox) => boolean): ConfigError {
  const sealedWithAnother = `this database's secrets were sealed with another key (${how})`;
  if (check.usedDevelopmentKey) {
    return new ConfigError(
      'SECRET_KEY',
      `not set, so \`${check.command}\` used the development key file ${developmentKeyFile(check.dataDir)}, but ${sealedWithAnother}${developmentAdvice(check.command, check.dataDir, fits)}`,
    );
  }
  // The usual way there: a command run without SECRET_KEY sealed with this directory's development key file.
  const developmentKey = readDevelopmentKey(check.dataDir);
  const sealedByFile = developmentKey !== undefined && fits(new SecretBox(developmentKey));
  const hint = sealedByFile
    ? `; it is the development key file ${developmentKeyFile(check.dataDir)} (made by a command run without GATEWAY_ENV=production and SECRET_KEY): set SECRET_KEY to its contents on every server and CLI command`
    : '; start every server and CLI command on this database with the SECRET_KEY that sealed them';
  return new ConfigError('SECRET_KEY', `${sealedWithAnother}${hint}`);
}

/**
 * Before a process without SECRET_KEY makes the development key file of DATA_DIR (the context
 * does, at its first use): a database that records a key, or holds sealed secrets, was sealed by
 * another key than any new one, typically a data directory restored or copied from another
 * DATA_DIR. Refused with the file to copy, and no key file is written that would have to be
 * removed before the right one is put in its place.
 */
export async function refuseNewDevelopmentKey(db: Kysely<DB>, check: Omit<SecretKeyCheck, 'claim' | 'usedDevelopmentKey'>): Promise<void> {
  if (readDevelopmentKey(check.dataDir) !== undefined) return;
  const recorded = await recordedKey(db);
  const sealed = recorded ? [] : await check.sealedSecrets();
  if (!recorded && sealed.length === 0) return;
  const fits = recorded ? (box: SecretBox) => box.fingerprint === recorded.fingerprint : (box: SecretBox) => opensAny(box, sealed);
  const how = recorded ? recordedWhen(recorded) : `${sealed.length} sealed secrets`;
  throw new ConfigError(
    'SECRET_KEY',
    `not set, and DATA_DIR has no development key file (${developmentKeyFile(check.dataDir)}), but this database's secrets were sealed with a key (${how}), which a new key file could not open${developmentAdvice(check.command, check.dataDir, fits)}. \`${check.command}\` wrote no key file`,
  );
}
