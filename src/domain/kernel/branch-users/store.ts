// The SQL of branch users: who issues documents at a branch, registered with
// its VSDC. One row per initialised branch and subject (a console user at every initialised
// branch of its merchant, a till login at its branch). Rows are queued in the transaction of the
// change they follow (a user created or removed, a till login created or deleted, a branch
// initialised), so no registration is lost to a crash, and leased like items
// (platform/workers/lease-sql.ts) by whoever files them.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { BranchUserState } from '../../../platform/db/tables/branch-users.ts';
import type { AuthorityDevice } from '../../../authorities/port/index.ts';
import { claimDueRows, released } from '../../../platform/workers/lease-sql.ts';
import { type VsdcSendOutcome, revisionedAnswerColumns } from '../authority-rows/answers.ts';
import { authorityDeviceOf, withAuthorityDevice, type AuthorityDeviceColumns } from '../authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

/** The VSDC's `userNm` holds at most this many characters; a longer email or username is cut. */
const USER_NAME_MAX = 60;

export type UseYn = 'Y' | 'N';

/**
 * Upserts the rows `source` selects (`tenant_id, device_id, user_id, till_login_id,
 * vsdc_user_id, user_name`) as `pending` with `useYn`, due at once. A row the VSDC already
 * holds with the same name and flag stays `registered` (nothing to send); any other is (again)
 * pending, a failed one included. Changed data bumps the revision, so an answer about the older
 * data, in flight right now, settles nothing.
 */
async function upsertPending(trx: Kysely<DB>, source: RawBuilder<unknown>, useYn: UseYn | RawBuilder<UseYn>): Promise<void> {
  const same = sql<boolean>`(branch_users.use_yn = excluded.use_yn and branch_users.user_name = excluded.user_name)`;
  const kept = sql<boolean>`(${same} and branch_users.state = 'registered')`;
  await sql`
    insert into branch_users (tenant_id, device_id, user_id, till_login_id, vsdc_user_id, user_name, use_yn, state, next_attempt_at)
    select s.tenant_id, s.device_id, s.user_id, s.till_login_id, s.vsdc_user_id, s.user_name, ${useYn}, 'pending', now()
    from (${source}) as s
    on conflict (device_id, vsdc_user_id) do update set
      user_name = excluded.user_name,
      use_yn = excluded.use_yn,
      revision = case when ${same} then branch_users.revision else branch_users.revision + 1 end,
      state = case when ${kept} then branch_users.state else 'pending' end,
      result_code = case when ${kept} then branch_users.result_code else null end,
      result_message = case when ${kept} then branch_users.result_message else null end,
      registered_at = case when ${kept} then branch_users.registered_at else null end,
      next_attempt_at = case when ${kept} then null else now() end,
      retry_attempts = case when ${kept} then branch_users.retry_attempts else 0 end,
      last_unreachable = case when ${kept} then branch_users.last_unreachable else null end,
      updated_at = now()`.execute(trx);
}

/** A console user's rows, one per initialised branch of its merchant (`users` as `u`, `devices` as `d`). */
const USER_ROWS = sql`
  select u.tenant_id, d.id as device_id, u.id as user_id, null::integer as till_login_id,
    'U' || u.id::text as vsdc_user_id, left(u.email, ${sql.lit(USER_NAME_MAX)}) as user_name
  from users u join devices d on d.tenant_id = u.tenant_id and d.initialized`;

/** A till login's row at its branch, when that is initialised (`till_logins` as `l`). */
const TILL_LOGIN_ROWS = sql`
  select l.tenant_id, d.id as device_id, null::integer as user_id, l.id as till_login_id,
    'T' || l.id::text as vsdc_user_id, left(l.username, ${sql.lit(USER_NAME_MAX)}) as user_name
  from till_logins l join devices d on d.id = l.device_id and d.initialized`;

/**
 * In the caller's transaction: the console user's registration at every initialised branch of
 * its merchant, pending with `useYn` (`Y` created, `N` removed).
 */
export async function queueConsoleUser(trx: Kysely<DB>, tenantId: number, userId: number, useYn: UseYn): Promise<void> {
  await upsertPending(trx, sql`${USER_ROWS} where u.id = ${userId} and u.tenant_id = ${tenantId}`, useYn);
}

/** In the caller's transaction: the till login's registration at its branch (if initialised), pending with `useYn`. */
export async function queueTillLogin(trx: Kysely<DB>, tenantId: number, tillLoginId: number, useYn: UseYn): Promise<void> {
  await upsertPending(trx, sql`${TILL_LOGIN_ROWS} where l.id = ${tillLoginId} and l.tenant_id = ${tenantId}`, useYn);
}

/**
 * In the transaction that initialises a device: its merchant's active console users and the
 * live till logins of its branch, pending with `Y`.
 */
export async function queueUsersOfNewBranch(trx: Kysely<DB>, deviceId: number): Promise<void> {
  await upsertPending(
    trx,
    sql`${USER_ROWS} where d.id = ${deviceId} and u.removed_at is null
      union all
      ${TILL_LOGIN_ROWS} where d.id = ${deviceId} and l.deleted_at is null`,
    'Y',
  );
}

export interface ClaimedBranchUser {
  id: number;
  revision: number;
  retryAttempts: number;
  userId: string;
  userName: string;
  useYn: UseYn;
  device: AuthorityDevice;
}

interface ClaimRow {
  id: string | number;
  revision: number;
  retry_attempts: number;
  vsdc_user_id: string;
  user_name: string;
  use_yn: UseYn;
}

/** Leases up to `limit` pending rows whose next attempt is due. */
export async function claimDueBranchUsers(db: Kysely<DB>, box: SecretBox, leaseMs: number, limit: number): Promise<ClaimedBranchUser[]> {
  const result = await sql<ClaimRow & AuthorityDeviceColumns>`
    ${claimDueRows('branch_users', { waiting: sql`r.state = 'pending'`, leaseMs, limit })}
    ${withAuthorityDevice('claimed')}
    order by claimed.id`.execute(db);
  return result.rows.map((row) => ({
    id: Number(row.id),
    revision: row.revision,
    retryAttempts: row.retry_attempts,
    userId: row.vsdc_user_id,
    userName: row.user_name,
    useYn: row.use_yn,
    device: authorityDeviceOf(row, box),
  }));
}

/**
 * Records the VSDC's answer about revision `revision` of a row and frees the lease. An answer
 * about older data leaves the row pending, due at once (the current data goes next).
 */
export async function recordBranchUserOutcome(db: Kysely<DB>, id: number, revision: number, outcome: VsdcSendOutcome): Promise<void> {
  await db
    .updateTable('branch_users')
    .set({ ...revisionedAnswerColumns(revision, outcome), ...released('branch_users'), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/** Where one subject's registration stands at one branch. */
export interface BranchRegistration {
  subjectId: number;
  branch: string;
  state: BranchUserState;
  resultCode: string | null;
  message: string | null;
}

function registrations(db: Kysely<DB>) {
  return db
    .selectFrom('branch_users as b')
    .innerJoin('devices as d', 'd.id', 'b.device_id')
    .select(['b.user_id', 'b.till_login_id', 'd.branch', 'b.state', 'b.result_code', 'b.result_message'])
    .orderBy('d.branch');
}

function bySubject(
  rows: Array<{
    user_id: number | null;
    till_login_id: number | null;
    branch: string;
    state: BranchUserState;
    result_code: string | null;
    result_message: string | null;
  }>,
  key: 'user_id' | 'till_login_id',
) {
  const map = new Map<number, BranchRegistration[]>();
  for (const row of rows) {
    const subjectId = Number(row[key]);
    const entry: BranchRegistration = {
      subjectId,
      branch: row.branch,
      state: row.state,
      resultCode: row.result_code,
      message: row.result_message,
    };
    const list = map.get(subjectId);
    if (list) list.push(entry);
    else map.set(subjectId, [entry]);
  }
  return map;
}

/** The registrations of these console users (of `tenantId`), by user id, each in branch order. */
export async function registrationsOfUsers(
  db: Kysely<DB>,
  tenantId: number,
  userIds: number[],
): Promise<Map<number, BranchRegistration[]>> {
  if (userIds.length === 0) return new Map();
  const rows = await registrations(db).where('b.tenant_id', '=', tenantId).where('b.user_id', 'in', userIds).execute();
  return bySubject(rows, 'user_id');
}

/** The registrations of these till logins (of `tenantId`), by login id (one branch each). */
export async function registrationsOfTillLogins(
  db: Kysely<DB>,
  tenantId: number,
  loginIds: number[],
): Promise<Map<number, BranchRegistration[]>> {
  if (loginIds.length === 0) return new Map();
  const rows = await registrations(db).where('b.tenant_id', '=', tenantId).where('b.till_login_id', 'in', loginIds).execute();
  return bySubject(rows, 'till_login_id');
}
