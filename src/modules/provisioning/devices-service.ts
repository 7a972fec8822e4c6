import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { presentDevice } from './present.ts';
import type { DeviceResource } from './schemas.ts';
import {
  claimDeviceForInit,
  findDevice,
  insertDevice,
  markDeviceInitialized,
  releaseDeviceClaim,
  type DeviceInitInfo,
  type DeviceRow,
  type TenantRow,
} from './store.ts';

/** What the VSDC answered to the initialisation handshake, already classified. */
export type HandshakeResult =
  | { kind: 'ok'; info: DeviceInitInfo }
  | { kind: 'already_installed'; message: string }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'rejected'; code: string; message: string };

export type Handshake = (target: { baseUrl: string; tpin: string; bhfId: string }, deviceSerial: string) => Promise<HandshakeResult>;

export interface RegisterDeviceInput {
  deviceSerial: string;
  branch: string;
  vsdcBaseUrl: string;
}

export async function registerDevice(db: Kysely<DB>, actor: Actor, tenant: TenantRow, input: RegisterDeviceInput): Promise<DeviceResource> {
  const exists = () =>
    new ApiError(422, 'branch_exists', `Branch ${input.branch} is already registered for this merchant; the existing device keeps its serial and VSDC address.`);
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await insertDevice(trx, { tenant_id: tenant.id, branch: input.branch, device_serial: input.deviceSerial.trim(), vsdc_base_url: input.vsdcBaseUrl.trim() });
      if (!row) throw exists();
      await recordAudit(trx, { actor, action: 'device.registered', tenantId: tenant.id, targetType: 'device', targetId: row.id, details: { branch: row.branch, deviceSerial: row.device_serial } });
      return presentDevice(row);
    });
  } catch (err) {
    throw isUniqueViolation(err) ? exists() : err;
  }
}

async function deviceOf(db: Kysely<DB>, tenantId: number, branch: string): Promise<DeviceRow> {
  const row = await findDevice(db, tenantId, branch);
  // The same condition answers the same shape everywhere (minting a key for the branch too).
  if (!row) throw new ApiError(404, 'device_not_found', `No device is registered for branch ${branch} of this merchant: register it first (POST /api/v1/tenants/{tenant}/devices).`);
  return row;
}

const CLAIM_SECONDS = 60;

/**
 * The handshake with the authority. Concurrent calls for one device are serialised through a
 * short claim on the device row (works across processes), never by holding a transaction
 * open across the VSDC call. An initialised device is a safe retry: returned unchanged.
 */
export async function initializeDevice(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRow,
  branch: string,
  handshake: Handshake,
  options: {
    pollMs?: number;
    maxWaitMs?: number;
    /** Runs after this call initialised the device (not on a repeat); must not throw. */
    afterInitialized?: () => Promise<void>;
  } = {},
): Promise<DeviceResource> {
  const deadline = Date.now() + (options.maxWaitMs ?? (CLAIM_SECONDS + 5) * 1000);
  for (;;) {
    const device = await deviceOf(db, tenant.id, branch);
    if (device.initialized) return presentDevice(device);
    const claimed = await claimDeviceForInit(db, device.id, CLAIM_SECONDS * 1000);
    if (claimed) {
      const initialized = await finishHandshake(db, actor, tenant, claimed, handshake);
      await options.afterInitialized?.();
      return initialized;
    }
    if (Date.now() > deadline) throw new ApiError(503, 'vsdc_unreachable', 'Another initialisation of this device is still running; retry shortly.');
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

async function finishHandshake(db: Kysely<DB>, actor: Actor, tenant: TenantRow, device: DeviceRow, handshake: Handshake): Promise<DeviceResource> {
  let result: HandshakeResult;
  try {
    result = await handshake({ baseUrl: device.vsdc_base_url, tpin: tenant.tpin, bhfId: device.branch }, device.device_serial);
  } catch (err) {
    result = { kind: 'unreachable', reason: (err as Error).message };
  }
  const release = () => releaseDeviceClaim(db, device.id);

  switch (result.kind) {
    case 'ok': {
      const info = result.info;
      return db.transaction().execute(async (trx) => {
        const row = await markDeviceInitialized(trx, device.id, info);
        await recordAudit(trx, { actor, action: 'device.initialized', tenantId: tenant.id, targetType: 'device', targetId: device.id, details: { branch: device.branch, sdcId: info.sdcId } });
        return presentDevice(row ?? (await deviceOf(trx, tenant.id, device.branch)));
      });
    }
    case 'already_installed': {
      await release();
      // Another process may have finished the handshake a moment ago: that is the safe retry.
      const current = await deviceOf(db, tenant.id, device.branch);
      if (current.initialized) return presentDevice(current);
      throw new ApiError(422, 'initialization_failed', result.message || 'This device is already installed at the authority.');
    }
    case 'rejected':
      await release();
      throw new ApiError(422, 'initialization_failed', result.message || `The authority refused the handshake (result code ${result.code}).`);
    case 'unreachable':
      await release();
      throw new ApiError(503, 'vsdc_unreachable', 'The VSDC could not be reached; nothing was changed. It is safe to repeat this request.', { 'retry-after': '5' });
  }
}
