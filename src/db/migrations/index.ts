import type { Migration, MigrationProvider } from 'kysely';
import { sql, type Kysely } from 'kysely';
import * as foundation from './0001_foundation.ts';

/** Every migration, in order. A migration is a list of SQL statements run one by one. */
const migrations: Record<string, { up: string[] }> = {
  '0001_foundation': foundation,
};

function toKysely(statements: string[]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, toKysely(m.up)]));
  },
};

/** A fingerprint of the migration set, so that test templates are rebuilt when it changes. */
export function migrationsFingerprint(): string {
  return JSON.stringify(Object.entries(migrations).map(([name, m]) => [name, m.up]));
}
