// Which key seals the database's secrets (issue 34): the database records the fingerprint of the
// secret box's key (SecretBox.fingerprint, table `secret_key`), and a process with another key
// refuses to start (exit 3, naming SECRET_KEY) rather than seal new secrets no server can open,
// or answer 503 `secret_unreadable` on every read-back. src/app/secret-key.ts runs the check for
// `serve` and the CLI commands (it knows the modules' sealed secrets); docs/deployment.md#secret_key.
import type { Kysely } from 'kysely';
import type { DB } from '../platform/db/schema.ts';
import { ConfigError } from '../platform/config.ts';
import { SecretBox, developmentKeyFile, readDevelopmentKey } from './secret-box.ts';

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

interface RecordedKey {
  fingerprint: string;
  recorded_by: string;
  recorded_at: Date;
}

async function recordedKey(db: Kysely<DB>): Promise<RecordedKey | undefined> {
  return db.selectFrom('secret_key').select(['fingerprint', 'recorded_by', 'recorded_at']).executeTakeFirst();
}

/** Records `fingerprint` unless a key is recorded already (two first starts at once: one wins); the recorded one. */
async function recordKey(db: Kysely<DB>, fingerprint: string, recordedBy: string): Promise<RecordedKey> {
  await db.insertInto('secret_key').values({ fingerprint, recorded_by: recordedBy }).onConflict((oc) => oc.column('singleton').doNothing()).execute();
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
    if (sealed.length > 0 && !sealed.some((s) => box.tryOpen(s.sealed, s.aad) !== undefined)) {
      throw refusal(check, `none of its ${sealed.length} newest sealed secrets opens with this one`, undefined);
    }
    if (!check.claim) return 'unrecorded';
    outcome = sealed.length > 0 ? 'adopted' : 'recorded';
    recorded = await recordKey(db, box.fingerprint, sealed.length > 0 ? `${by} (adopted: it opens the secrets sealed before keys were recorded)` : by);
  }
  if (recorded.fingerprint !== box.fingerprint) {
    const when = recorded.recorded_at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    throw refusal(check, `recorded by \`${recorded.recorded_by}\` at ${when}`, recorded.fingerprint);
  }
  return outcome;
}

function refusal(check: SecretKeyCheck, how: string, recordedFingerprint: string | undefined): ConfigError {
  const sealedWithAnother = `this database's secrets were sealed with another key (${how})`;
  if (check.usedDevelopmentKey) {
    return new ConfigError(
      'SECRET_KEY',
      `not set, so \`${check.command}\` used the development key file ${developmentKeyFile(check.dataDir)}, but ${sealedWithAnother}; the CLI needs the same variables as the servers: GATEWAY_ENV=production and SECRET_KEY (and DATABASE_URL)`,
    );
  }
  // The usual way there: a command run without SECRET_KEY sealed with this directory's development key file.
  const developmentKey = readDevelopmentKey(check.dataDir);
  const sealedByFile = developmentKey !== undefined && recordedFingerprint !== undefined && new SecretBox(developmentKey).fingerprint === recordedFingerprint;
  const hint = sealedByFile
    ? `; it is the development key file ${developmentKeyFile(check.dataDir)} (made by a command run without GATEWAY_ENV=production and SECRET_KEY): set SECRET_KEY to its contents on every server and CLI command`
    : '; start every server and CLI command on this database with the SECRET_KEY that sealed them';
  return new ConfigError('SECRET_KEY', `${sealedWithAnother}${hint}`);
}
