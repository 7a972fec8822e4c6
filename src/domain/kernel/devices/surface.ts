// What the device services share: the merchant a device belongs to, where a device is managed
// from (said in refusals), and the device of a branch or the refusal that it is not registered.
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import type { TenantsTable } from '../../../platform/db/tables/foundation.ts';
import { findDevice, type DeviceRow } from './store.ts';

/** The merchant a device belongs to, as its row (kernel/tenants names it TenantRow; devices sit below tenants). */
export type TenantRow = Selectable<TenantsTable>;

/** Where to register a device, said in refusals (the partner's path or the merchant's own). */
export type DeviceSurface = 'partner' | 'account';

export const registerPath = (surface: DeviceSurface) =>
  surface === 'partner' ? 'POST /api/v1/tenants/{tenant}/devices' : 'POST /api/v1/account/devices';

export function notRegistered(branch: string, surface: DeviceSurface): ApiError {
  // The same condition answers the same shape everywhere (minting a key for the branch too).
  return new ApiError(
    'device_not_found',
    `No device is registered for branch ${branch} of this merchant: register it first (${registerPath(surface)}).`,
  );
}

export async function deviceOf(db: Kysely<DB>, tenantId: number, branch: string, surface: DeviceSurface = 'partner'): Promise<DeviceRow> {
  const row = await findDevice(db, tenantId, branch);
  if (!row) throw notRegistered(branch, surface);
  return row;
}
