import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { CustomerRegistrationState, CustomersTable, VerificationState } from '../../../platform/db/tables/items.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import type { AuthorityDevice } from '../../../authorities/port/index.ts';
import { claimDueRows, leased, released } from '../../../platform/workers/lease-sql.ts';
import { ANSWERED_COLUMNS, unansweredColumns } from '../../kernel/authority-rows/answers.ts';
import { authorityDeviceOf, withAuthorityDevice, type AuthorityDeviceColumns } from '../../kernel/authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

export type CustomerRow = Selectable<CustomersTable> & { branch: string | null };

const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function customersWithBranch(db: Kysely<DB>) {
  return db.selectFrom('customers as c').leftJoin('devices as d', 'd.id', 'c.device_id').selectAll('c').select('d.branch');
}

interface NewCustomer {
  tenantId: number;
  deviceId: number | null;
  name: string;
  tpin: string | null;
  address: string | null;
  phone: string | null;
  email: string | null;
  /** Held by the request that creates it, which talks to the VSDC itself first. */
  leaseMs: number;
}

/** Undefined when the tenant already has a customer with that TPIN. */
export async function insertCustomer(db: Kysely<DB>, customer: NewCustomer): Promise<CustomerRow | undefined> {
  const local = customer.tpin === null;
  const inserted = await db
    .insertInto('customers')
    .values({
      tenant_id: customer.tenantId,
      device_id: customer.deviceId,
      name: customer.name,
      tpin: customer.tpin,
      address: customer.address,
      phone: customer.phone,
      email: customer.email,
      verification_state: local ? 'not_applicable' : 'pending',
      registration_state: local ? 'not_applicable' : 'pending',
      next_attempt_at: local ? null : sql<Date>`now()`,
      ...(local ? released('customers') : leased('customers', { ms: customer.leaseMs })),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'tpin']).where('tpin', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted ? findCustomer(db, customer.tenantId, inserted.id) : undefined;
}

export async function findCustomer(db: Kysely<DB>, tenantId: number, id: number): Promise<CustomerRow | undefined> {
  return customersWithBranch(db).where('c.tenant_id', '=', tenantId).where('c.id', '=', id).executeTakeFirst();
}

export async function findCustomerByTpin(db: Kysely<DB>, tenantId: number, tpin: string): Promise<CustomerRow | undefined> {
  return customersWithBranch(db).where('c.tenant_id', '=', tenantId).where('c.tpin', '=', tpin).executeTakeFirst();
}

export async function listCustomers(
  db: Kysely<DB>,
  tenantId: number,
  filter: { tpin?: string | undefined; name?: string | undefined },
  page: number,
): Promise<{ rows: CustomerRow[]; total: number }> {
  let query = customersWithBranch(db).where('c.tenant_id', '=', tenantId);
  if (filter.tpin !== undefined) query = query.where('c.tpin', '=', filter.tpin);
  if (filter.name !== undefined) query = query.where('c.name', 'ilike', containing(filter.name));
  const [rows, count] = await Promise.all([
    query.orderBy('c.id', 'desc').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export interface ClaimedCustomer {
  id: number;
  tenantId: number;
  tpin: string;
  name: string;
  address: string | null;
  phone: string | null;
  email: string | null;
  verificationState: VerificationState;
  registrationState: CustomerRegistrationState;
  retryAttempts: number;
  device: AuthorityDevice;
}

type ClaimRow = AuthorityDeviceColumns & {
  id: number;
  tenant_id: number;
  tpin: string | null;
  name: string;
  address: string | null;
  phone: string | null;
  email: string | null;
  verification_state: VerificationState;
  registration_state: CustomerRegistrationState;
  retry_attempts: number;
};

function claimedFrom(row: ClaimRow, box: SecretBox): ClaimedCustomer {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    tpin: row.tpin!,
    name: row.name,
    address: row.address,
    phone: row.phone,
    email: row.email,
    verificationState: row.verification_state,
    registrationState: row.registration_state,
    retryAttempts: row.retry_attempts,
    device: authorityDeviceOf(row, box),
  };
}

/** The customer with its branch's VSDC, for the request that created it and holds its lease. */
export async function leasedCustomer(db: Kysely<DB>, box: SecretBox, id: number): Promise<ClaimedCustomer | undefined> {
  const result = await sql<ClaimRow>`
    with leased as (select * from customers where id = ${id})
    ${withAuthorityDevice('leased')}`.execute(db);
  const row = result.rows[0];
  return row ? claimedFrom({ ...row, id: Number(row.id) }, box) : undefined;
}

/** Leases up to `limit` customers whose verification or registration waits and is due. */
export async function claimDueCustomers(db: Kysely<DB>, box: SecretBox, leaseMs: number, limit: number): Promise<ClaimedCustomer[]> {
  const result = await sql<ClaimRow>`
    ${claimDueRows('customers', { waiting: sql`verification_state = 'pending' or registration_state = 'pending'`, leaseMs, limit })}
    ${withAuthorityDevice('claimed')}`.execute(db);
  return result.rows.map((row) => claimedFrom({ ...row, id: Number(row.id) }, box));
}

export type VerificationOutcome =
  | { state: 'verified'; authorityName: string | null; authorityAddress: string | null; code: string }
  | { state: 'unknown' | 'failed'; code: string; message: string | null };

export type RegistrationOutcome = { state: 'registered'; code: string } | { state: 'failed'; code: string; message: string | null };

interface AttemptResult {
  /** Undefined when that fact was not asked about, or the VSDC did not answer it. */
  verification?: VerificationOutcome | undefined;
  registration?: RegistrationOutcome | undefined;
  /** Set when something still waits: the VSDC did not answer. */
  unreachable?: { detail: string; retryInMs: number } | undefined;
}

/** Stores what the VSDC answered, schedules the next try if something still waits, frees the lease. */
export async function recordAttempt(db: Kysely<DB>, id: number, result: AttemptResult): Promise<void> {
  const { verification, registration, unreachable } = result;
  await db
    .updateTable('customers')
    .set({
      ...(verification
        ? {
            verification_state: verification.state,
            verification_code: verification.code,
            verification_message: verification.state === 'verified' ? null : verification.message,
            verified_name: verification.state === 'verified' ? verification.authorityName : null,
            verified_address: verification.state === 'verified' ? verification.authorityAddress : null,
            verification_checked_at: sql<Date>`now()`,
          }
        : {}),
      ...(registration
        ? {
            registration_state: registration.state,
            registration_code: registration.code,
            registration_message: registration.state === 'failed' ? registration.message : null,
            registered_at: registration.state === 'registered' ? sql<Date>`now()` : null,
          }
        : {}),
      ...(unreachable ? unansweredColumns(unreachable) : { ...ANSWERED_COLUMNS, next_attempt_at: null }),
      ...released('customers'),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .execute();
}
