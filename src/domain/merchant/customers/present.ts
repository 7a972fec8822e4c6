import type { CustomerResource } from './schemas.ts';
import type { CustomerRow } from './store.ts';
import { iso } from '../../../platform/lib/time.ts';

export function presentCustomer(row: CustomerRow): CustomerResource {
  const waiting = (pending: boolean) => ({
    nextAttemptAt: pending ? iso(row.next_attempt_at) : null,
    lastError: pending ? row.last_unreachable : null,
  });
  return {
    id: Number(row.id),
    name: row.name,
    tpin: row.tpin,
    address: row.address,
    phone: row.phone,
    email: row.email,
    branch: row.branch,
    verification: {
      state: row.verification_state,
      authorityName: row.verified_name,
      authorityAddress: row.verified_address,
      resultCode: row.verification_code,
      message: row.verification_message,
      checkedAt: iso(row.verification_checked_at),
      ...waiting(row.verification_state === 'pending'),
    },
    registration: {
      state: row.registration_state,
      resultCode: row.registration_code,
      message: row.registration_message,
      registeredAt: iso(row.registered_at),
      ...waiting(row.registration_state === 'pending'),
    },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
