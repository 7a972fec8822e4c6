// Customers: a local record, or — with a TPIN — two separate facts obtained from the authority
// through the branch's device (its CustomersPort): verification (what the register says about the
// TPIN) and registration (the customer accepted onto the branch's list). Each fails on its own;
// what the authority did not answer is retried in the background.
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { NotFoundError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { backoffMs } from '../../../platform/workers/backoff.ts';
import { vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { branchForWrite, merchantOrigin, pickBranch } from '../../kernel/devices/branch-rule.ts';
import { devicesOfTenant } from '../../kernel/devices/store.ts';
import { presentCustomer } from './present.ts';
import type { CreateCustomerBody, CustomerResource, ListCustomersQuery } from './schemas.ts';
import {
  claimDueCustomers,
  leasedCustomer,
  findCustomer,
  findCustomerByTpin,
  insertCustomer,
  listCustomers,
  recordAttempt,
  type ClaimedCustomer,
  type RegistrationOutcome,
  type VerificationOutcome,
} from './store.ts';

export const CUSTOMER_RETRY_BATCH = 20;

interface CreatedCustomer {
  customer: CustomerResource;
  /** False when the tenant already had a customer with this TPIN: that one is returned, unchanged. */
  created: boolean;
}

/**
 * Stores the customer, then (with a TPIN) asks the branch's authority for both facts before
 * answering. The branch is X-Branch or the default, and must be initialised; a customer without
 * a TPIN needs no branch.
 */
export async function createCustomer(
  ctx: AppContext,
  tenant: TenantAccount,
  branchHeader: string | undefined,
  body: CreateCustomerBody,
): Promise<CreatedCustomer> {
  const tpin = body.tpin ?? null;
  const devices = await devicesOfTenant(ctx.db, tenant.id);
  if (branchHeader !== undefined) pickBranch(devices, branchHeader); // a wrong X-Branch is an error whatever follows
  let deviceId: number | null = null;
  if (tpin !== null) {
    const existing = await findCustomerByTpin(ctx.db, tenant.id, tpin);
    if (existing) return { customer: presentCustomer(existing), created: false };
    deviceId = branchForWrite(devices, branchHeader, merchantOrigin(tenant)).id;
  }
  const row = await insertCustomer(ctx.db, {
    tenantId: tenant.id,
    deviceId,
    name: body.name.trim(),
    tpin,
    address: body.address?.trim() || null,
    phone: body.phone?.trim() || null,
    email: body.email?.trim() || null,
    leaseMs: vsdcLeaseMs(ctx.config),
  });
  if (!row) {
    // Another request created the same TPIN a moment ago.
    const existing = await findCustomerByTpin(ctx.db, tenant.id, tpin!);
    return { customer: presentCustomer(existing!), created: false };
  }
  if (tpin === null) return { customer: presentCustomer(row), created: true };
  const claimed = await leasedCustomer(ctx.db, ctx.secretBox, Number(row.id));
  if (claimed) await settleCustomer(ctx, claimed);
  return { customer: presentCustomer((await findCustomer(ctx.db, tenant.id, Number(row.id)))!), created: true };
}

export async function getCustomer(ctx: AppContext, tenantId: number, id: number): Promise<CustomerResource> {
  const row = await findCustomer(ctx.db, tenantId, id);
  if (!row) throw new NotFoundError('Customer not found.');
  return presentCustomer(row);
}

export async function listCustomersPage(ctx: AppContext, tenantId: number, query: ListCustomersQuery): Promise<Page<CustomerResource>> {
  const { rows, total } = await listCustomers(ctx.db, tenantId, { tpin: query.tpin, name: query.name?.trim() || undefined }, query.page);
  return pageOf(rows.map(presentCustomer), total, query.page);
}

/** A fact the authority answered, or why it did not. */
type Answer<T> = { kind: 'answered'; outcome: T } | { kind: 'unanswered'; detail: string };

async function verify(ctx: AppContext, customer: ClaimedCustomer): Promise<Answer<VerificationOutcome>> {
  const outcome = await ctx.authorities.of(customer.device.profile).customers.lookUp(customer.device, customer.tpin);
  switch (outcome.kind) {
    case 'found':
      return {
        kind: 'answered',
        outcome: { state: 'verified', authorityName: outcome.name, authorityAddress: outcome.address, code: outcome.code },
      };
    case 'unknown':
      return { kind: 'answered', outcome: { state: 'unknown', code: outcome.code, message: outcome.message } };
    case 'rejected':
      return { kind: 'answered', outcome: { state: 'failed', code: outcome.code, message: outcome.message } };
    case 'unreachable':
      return { kind: 'unanswered', detail: `verification: ${outcome.reason}: ${outcome.detail}` };
  }
}

async function register(ctx: AppContext, customer: ClaimedCustomer): Promise<Answer<RegistrationOutcome>> {
  const outcome = await ctx.authorities.of(customer.device.profile).customers.register(customer.device, {
    number: `C${customer.id}`,
    tpin: customer.tpin,
    name: customer.name,
    address: customer.address,
    phone: customer.phone,
    email: customer.email,
  });
  switch (outcome.kind) {
    case 'accepted':
      return { kind: 'answered', outcome: { state: 'registered', code: outcome.code } };
    case 'rejected':
      return { kind: 'answered', outcome: { state: 'failed', code: outcome.code, message: outcome.message } };
    case 'unreachable':
      return { kind: 'unanswered', detail: `registration: ${outcome.reason}: ${outcome.detail}` };
  }
}

const answered = <T>(answer: Answer<T> | undefined): T | undefined => (answer?.kind === 'answered' ? answer.outcome : undefined);

/**
 * Asks the authority about whichever facts still wait — independently, so one failing never holds
 * the other back — and records the answers. The caller holds the row's lease.
 */
async function settleCustomer(ctx: AppContext, customer: ClaimedCustomer): Promise<void> {
  const [verification, registration] = await Promise.all([
    customer.verificationState === 'pending' ? verify(ctx, customer) : undefined,
    customer.registrationState === 'pending' ? register(ctx, customer) : undefined,
  ]);
  const unanswered = [verification, registration].flatMap((a) => (a?.kind === 'unanswered' ? [a.detail] : []));
  await recordAttempt(ctx.db, customer.id, {
    verification: answered(verification),
    registration: answered(registration),
    unreachable:
      unanswered.length > 0
        ? { detail: unanswered.join('; '), retryInMs: backoffMs(ctx.config.filingRetryMs, customer.retryAttempts + 1) }
        : undefined,
  });
}

/** One background round: retries customers whose wait is over. Returns how many it handled. */
export async function retryDueCustomers(ctx: AppContext): Promise<number> {
  const due = await claimDueCustomers(ctx.db, ctx.secretBox, vsdcLeaseMs(ctx.config), CUSTOMER_RETRY_BATCH);
  await Promise.all(due.map((customer) => settleCustomer(ctx, customer)));
  return due.length;
}
