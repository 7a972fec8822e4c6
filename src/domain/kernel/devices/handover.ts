// A device's secrets and a device initialised elsewhere. The unit's key (KRA's cmcKey) and an API
// gateway's credential are sealed with the context's SecretBox, bound to the device's row, and
// opened only to hand the device to its adapter; no answer, audit row or log line carries them.
import { sql, type Kysely } from 'kysely';
import { profileOf } from '../../../authorities/index.ts';
import { unreachableCause } from '../../../authorities/port/outcomes.ts';
import type { AuthorityDevice, Rejected, Unreachable } from '../../../authorities/port/index.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { queueUsersOfNewBranch } from '../branch-users/store.ts';
import { sealApiCredential, sealUnitKey, type DeviceApiCredential, type SealedDeviceColumns } from '../authority-rows/devices.ts';
import { markDeviceInitialized, type DeviceRow } from './store.ts';

export interface HandoverInput {
  sdcId: string;
  mrcNo?: string;
  unitKey: string;
}

export type ApiCredentialInput = { token: string } | { clientId: string; clientSecret: string; tokenUrl: string };

/** The credential as the adapter takes it. */
export function credentialOf(input: ApiCredentialInput | undefined): DeviceApiCredential | null {
  if (!input) return null;
  return 'token' in input
    ? { kind: 'bearer', token: input.token }
    : { kind: 'client', clientId: input.clientId, clientSecret: input.clientSecret, tokenUrl: input.tokenUrl.trim() };
}

/** Where a device's calls go and as whom: its profile, address, merchant and branch. */
export function deviceAddress(
  tenant: { authority: string; tpin: string },
  device: { branch: string; protocol: string; vsdc_base_url: string },
): AuthorityDevice {
  return { profile: profileOf(tenant.authority, device.protocol), baseUrl: device.vsdc_base_url, tpin: tenant.tpin, branch: device.branch };
}

/** The unit id, number and key handed over, as the device carries them. */
export function handedOver(handover: HandoverInput): Pick<AuthorityDevice, 'sdcId' | 'mrcNo' | 'unitKey'> {
  return { sdcId: handover.sdcId.trim(), mrcNo: handover.mrcNo?.trim() ?? '', unitKey: handover.unitKey };
}

/** A device row's sealed columns under the names deviceSecrets reads. */
export function sealedColumnsOf(row: DeviceRow): SealedDeviceColumns {
  return {
    device_key_id: row.id,
    device_unit_key_sealed: row.unit_key_sealed,
    device_api_credential_sealed: row.api_credential_sealed,
    device_production: row.production,
  };
}

export async function storeApiCredential(
  db: Kysely<DB>,
  box: SecretBox,
  deviceId: number,
  credential: DeviceApiCredential,
): Promise<DeviceRow> {
  return db
    .updateTable('devices')
    .set({
      api_credential_sealed: sealApiCredential(box, deviceId, credential),
      api_credential_kind: credential.kind,
      updated_at: sql`now()`,
    })
    .where('id', '=', deviceId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Asks the authority, by a call that changes nothing, whether it takes the device with the
 * handed-over unit id and key: refused is 422 `initialization_failed` with its text, no answer 503.
 */
export async function verifyHandover(
  verify: (device: AuthorityDevice) => Promise<{ kind: 'ok' } | Rejected | Unreachable>,
  device: AuthorityDevice,
): Promise<void> {
  let outcome: { kind: 'ok' } | Rejected | Unreachable;
  try {
    outcome = await verify(device);
  } catch (err) {
    outcome = { kind: 'unreachable', reason: 'network_error', detail: (err as Error).message };
  }
  if (outcome.kind === 'ok') return;
  if (outcome.kind === 'rejected') {
    throw new ApiError(
      'initialization_failed',
      `${outcome.message || 'The authority refused the handed-over device.'} (the unit at ${device.baseUrl}, result code ${outcome.code}; checked with the handed-over unit id ${device.sdcId} and key). Nothing was stored.`,
    );
  }
  throw new ApiError(
    'vsdc_unreachable',
    `The authority's unit at ${device.baseUrl} could not be reached to check the handed-over device: ${unreachableCause(outcome)}. Nothing was stored; repeat this request once it is up.`,
    { 'retry-after': '5' },
  );
}

/** Marks the device initialised with the handed-over unit id and key (no initialisation call was made). */
export async function takeHandover(
  trx: Kysely<DB>,
  actor: Actor,
  tenant: { id: number },
  device: DeviceRow,
  handover: HandoverInput,
  box: SecretBox,
): Promise<DeviceRow> {
  const { sdcId, mrcNo } = handedOver(handover);
  const row = await markDeviceInitialized(
    trx,
    device.id,
    {
      sdcId: sdcId!,
      mrcNo: mrcNo ?? '',
      taxpayerName: null,
      branchName: null,
      lastSaleInvoiceNo: 0,
      lastPurchaseInvoiceNo: null,
      lastSaleReceiptNo: null,
    },
    sealUnitKey(box, device.id, handover.unitKey),
  );
  if (!row) throw new ApiError('device_initialized', `The device of branch ${device.branch} is already initialised; nothing was changed.`);
  await queueUsersOfNewBranch(trx, device.id);
  await recordAudit(trx, {
    actor,
    action: 'device.initialized',
    tenantId: tenant.id,
    targetType: 'device',
    targetId: device.id,
    details: { branch: device.branch, sdcId: row.sdc_id, handedOver: true },
  });
  return row;
}
