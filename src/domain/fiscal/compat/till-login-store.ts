// SQL of till logins: the partner's list, create and delete (each queues the login's
// registration with its branch's VSDC, kernel/branch-users), the getactive lookup, and the
// one transaction that swaps a login's till key.
import { sql, type Kysely } from 'kysely';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { PREFIXES, hashSecret, last4, mintSecret } from '../../../credentials/secret-format.ts';
import { documentsInMonth } from '../../../credentials/standing.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { Plan } from '../../../platform/db/tables/foundation.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';
import { queueTillLogin } from '../../kernel/branch-users/store.ts';

export type Dialect = 'bare' | 'wrapped';

export interface TillLoginRow {
  id: number;
  username: string;
  dialect: Dialect;
  branch: string;
  sdcId: string | null;
  activeKeyId: number | null;
  createdAt: Date;
  lastLoginAt: Date | null;
}

function liveLogins(db: Kysely<DB>, tenantId: number) {
  return db
    .selectFrom('till_logins as l')
    .innerJoin('devices as d', 'd.id', 'l.device_id')
    .leftJoin('api_keys as k', (join) => join.onRef('k.id', '=', 'l.api_key_id').on('k.revoked_at', 'is', null))
    .select(['l.id', 'l.username', 'l.dialect', 'd.branch', 'd.sdc_id', 'k.id as active_key_id', 'l.created_at', 'l.last_login_at'])
    .where('l.tenant_id', '=', tenantId)
    .where('l.deleted_at', 'is', null);
}

type LiveLoginRow = Awaited<ReturnType<ReturnType<typeof liveLogins>['executeTakeFirstOrThrow']>>;

function toTillLogin(row: LiveLoginRow): TillLoginRow {
  return {
    id: row.id,
    username: row.username,
    dialect: row.dialect,
    branch: row.branch,
    sdcId: row.sdc_id,
    activeKeyId: row.active_key_id,
    createdAt: row.created_at,
    lastLoginAt: row.last_login_at,
  };
}

export async function listTillLoginRows(db: Kysely<DB>, tenantId: number): Promise<TillLoginRow[]> {
  const rows = await liveLogins(db, tenantId).orderBy('l.id').execute();
  return rows.map(toTillLogin);
}

export async function findTillLoginRow(db: Kysely<DB>, tenantId: number, id: number): Promise<TillLoginRow | undefined> {
  const row = await liveLogins(db, tenantId).where('l.id', '=', id).executeTakeFirst();
  return row ? toTillLogin(row) : undefined;
}

export async function findDeviceOfBranch(db: Kysely<DB>, tenantId: number, branch: string): Promise<{ id: number } | undefined> {
  return db.selectFrom('devices').select('id').where('tenant_id', '=', tenantId).where('branch', '=', branch).executeTakeFirst();
}

interface NewTillLogin {
  tenantId: number;
  deviceId: number;
  username: string;
  passwordHash: string;
  dialect: Dialect;
}

/** Inserts the login and its audit row; a taken username is a unique violation (thrown). */
export async function insertTillLogin(db: Kysely<DB>, actor: Actor, login: NewTillLogin): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('till_logins')
      .values({
        tenant_id: login.tenantId,
        device_id: login.deviceId,
        username: login.username,
        password_hash: login.passwordHash,
        dialect: login.dialect,
      })
      .returning(['id'])
      .executeTakeFirstOrThrow();
    await queueTillLogin(trx, login.tenantId, row.id, 'Y');
    await recordAudit(trx, {
      actor,
      action: 'till_login.created',
      tenantId: login.tenantId,
      targetType: 'till_login',
      targetId: row.id,
      details: { username: login.username, dialect: login.dialect },
    });
    return row.id;
  });
}

async function revokeKey(
  trx: Kysely<DB>,
  actor: Actor,
  scope: { tenantId: number; partnerId?: number | null },
  keyId: number | null,
): Promise<void> {
  if (keyId === null) return;
  const revoked = await trx
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (revoked) await recordAudit(trx, { actor, action: 'api_key.revoked', ...scope, targetType: 'api_key', targetId: keyId });
}

/** Soft-deletes the login and revokes its till key. Undefined when the tenant has no such login. */
export async function deleteTillLoginRow(
  db: Kysely<DB>,
  actor: Actor,
  tenantId: number,
  id: number,
): Promise<{ deleted: boolean } | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('till_logins')
      .select(['id', 'api_key_id', 'deleted_at'])
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.deleted_at) return { deleted: false };
    await trx
      .updateTable('till_logins')
      .set({ deleted_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    await revokeKey(trx, actor, { tenantId }, row.api_key_id);
    await queueTillLogin(trx, tenantId, id, 'N');
    await recordAudit(trx, { actor, action: 'till_login.deleted', tenantId, targetType: 'till_login', targetId: id });
    return { deleted: true };
  });
}

/** A live login matching a getactive's TPIN and username, with what the answer and checks need. */
export interface LoginCandidate {
  loginId: number;
  passwordHash: string;
  dialect: Dialect;
  device: { id: number; branch: string; sdcId: string | null; name: string | null; initialized: boolean };
  tenant: TenantAccount;
}

/** Several tenants may share a TPIN (one per partner), so several logins may match. */
export async function findLoginCandidates(db: Kysely<DB>, tpin: string, username: string, month: string): Promise<LoginCandidate[]> {
  const rows = await db
    .selectFrom('till_logins as l')
    .innerJoin('tenants as t', 't.id', 'l.tenant_id')
    .innerJoin('devices as d', 'd.id', 'l.device_id')
    .select([
      'l.id as login_id',
      'l.password_hash',
      'l.dialect',
      'd.id as device_id',
      'd.branch',
      'd.sdc_id',
      'd.branch_name',
      'd.initialized',
      't.id as tenant_id',
      't.partner_id',
      't.name',
      't.tpin',
      't.plan',
      't.subscription',
      't.status',
      't.monthly_quota',
      't.rate_limit_per_minute',
      't.offline_policy',
      't.authority',
      't.timezone',
      documentsInMonth(sql`t.id`, month).as('documents'),
    ])
    .where(sql<boolean>`lower(l.username) = lower(${username})`)
    .where('l.deleted_at', 'is', null)
    .where('t.tpin', '=', tpin)
    .orderBy('l.id')
    .execute();
  return rows.map((r) => ({
    loginId: r.login_id,
    passwordHash: r.password_hash,
    dialect: r.dialect,
    device: { id: r.device_id, branch: r.branch, sdcId: r.sdc_id, name: r.branch_name, initialized: r.initialized },
    tenant: {
      id: r.tenant_id,
      partnerId: r.partner_id,
      name: r.name,
      tpin: r.tpin,
      plan: r.plan as Plan | null,
      subscription: r.subscription,
      status: r.status,
      monthlyQuota: r.monthly_quota,
      rateLimitPerMinute: r.rate_limit_per_minute,
      offlinePolicy: r.offline_policy,
      authority: r.authority,
      timezone: r.timezone,
      documentsThisMonth: Number(r.documents),
    },
  }));
}

/**
 * Mints the login's new till key and revokes its previous one in one transaction, the login row
 * locked so that concurrent logins leave exactly one live key: the last to commit. Undefined
 * when the login was deleted meanwhile.
 */
export async function swapTillKey(db: Kysely<DB>, loginId: number, partnerId: number | null): Promise<string | undefined> {
  const actor: Actor = { type: 'till_login', loginId };
  return db.transaction().execute(async (trx) => {
    const login = await trx
      .selectFrom('till_logins')
      .select(['id', 'tenant_id', 'device_id', 'dialect', 'api_key_id'])
      .where('id', '=', loginId)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!login) return undefined;
    const key = mintSecret(PREFIXES.fiscalisationKey);
    const created = await trx
      .insertInto('api_keys')
      .values({
        tenant_id: login.tenant_id,
        device_id: login.device_id,
        dialect: login.dialect,
        key_hash: hashSecret(key),
        last4: last4(key),
        till_login_id: login.id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await revokeKey(trx, actor, { tenantId: login.tenant_id, partnerId }, login.api_key_id);
    await trx
      .updateTable('till_logins')
      .set({ api_key_id: created.id, last_login_at: sql`now()` })
      .where('id', '=', login.id)
      .execute();
    await recordAudit(trx, {
      actor,
      action: 'api_key.created',
      tenantId: login.tenant_id,
      partnerId,
      targetType: 'api_key',
      targetId: created.id,
      details: { tillLoginId: login.id, dialect: login.dialect },
    });
    return key;
  });
}
