// A device's handshake with its authority: initialisation by the gateway, or a handover of a
// device initialised elsewhere.
import type { Kysely } from 'kysely';
import { unreachableCause } from '../../../authorities/port/outcomes.ts';
import type { Initialisation } from '../../../authorities/port/index.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { queueUsersOfNewBranch } from '../branch-users/store.ts';
import { deviceSecrets, sealUnitKey } from '../authority-rows/devices.ts';
import { deviceAddress, handedOver, sealedColumnsOf, takeHandover, verifyHandover, type HandoverInput } from './handover.ts';
import { presentDevice } from './present.ts';
import type { DeviceResource } from './schemas.ts';
import type { Handshake } from './service.ts';
import { claimDeviceForInit, markDeviceInitialized, releaseDeviceClaim, type DeviceInitInfo, type DeviceRow } from './store.ts';
import { deviceOf, type DeviceSurface, type TenantRow } from './surface.ts';

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
    surface?: DeviceSurface;
  } = {},
): Promise<DeviceResource> {
  const deadline = Date.now() + (options.maxWaitMs ?? (CLAIM_SECONDS + 5) * 1000);
  for (;;) {
    const device = await deviceOf(db, tenant.id, branch, options.surface);
    if (device.initialized) return presentDevice(device);
    const claimed = await claimDeviceForInit(db, device.id, CLAIM_SECONDS * 1000);
    if (claimed) {
      const initialized = await finishHandshake(db, actor, tenant, claimed, handshake, options.surface ?? 'partner');
      await options.afterInitialized?.();
      return initialized;
    }
    if (Date.now() > deadline)
      throw new ApiError('vsdc_unreachable', 'Another initialisation of this device is still running; retry shortly.');
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

/** Where a device is corrected, said in the refusals of its handshake. */
const correctPath = (surface: DeviceSurface) =>
  surface === 'partner'
    ? 'PATCH /api/v1/tenants/{tenant}/devices/{branch}'
    : 'Correct device in the console, or PATCH /api/v1/account/devices/{branch}';

async function finishHandshake(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRow,
  device: DeviceRow,
  handshake: Handshake,
  surface: DeviceSurface,
): Promise<DeviceResource> {
  let result: Initialisation;
  try {
    result = await handshake.initialise(
      { ...deviceAddress(tenant, device), ...deviceSecrets(handshake.box, sealedColumnsOf(device)) },
      device.device_serial,
    );
  } catch (err) {
    result = { kind: 'unreachable', reason: 'network_error', detail: (err as Error).message };
  }
  const release = () => releaseDeviceClaim(db, device.id);

  switch (result.kind) {
    case 'ok': {
      const info: DeviceInitInfo = result.device;
      const unitKeySealed = info.unitKey ? sealUnitKey(handshake.box, device.id, info.unitKey) : null;
      return db.transaction().execute(async (trx) => {
        const row = await markDeviceInitialized(trx, device.id, info, unitKeySealed);
        // The merchant's users and the branch's till logins are registered with its VSDC.
        if (row) await queueUsersOfNewBranch(trx, device.id);
        await recordAudit(trx, {
          actor,
          action: 'device.initialized',
          tenantId: tenant.id,
          targetType: 'device',
          targetId: device.id,
          details: { branch: device.branch, sdcId: info.sdcId },
        });
        return presentDevice(row ?? (await deviceOf(trx, tenant.id, device.branch)));
      });
    }
    case 'already_installed': {
      await release();
      // Another process may have finished the handshake a moment ago: that is the safe retry.
      const current = await deviceOf(db, tenant.id, device.branch);
      if (current.initialized) return presentDevice(current);
      throw new ApiError(
        'initialization_failed',
        `${result.message || 'This device is already installed at the authority.'} (the VSDC at ${device.vsdc_base_url}, device serial ${device.device_serial})`,
      );
    }
    case 'rejected':
      await release();
      // The authority's text first (spec: the message is its text); where it came from after it.
      throw new ApiError(
        'initialization_failed',
        `${result.message || 'The authority refused the handshake.'} (the VSDC at ${device.vsdc_base_url}, result code ${result.code})`,
      );
    case 'unreachable':
      await release();
      throw new ApiError(
        'vsdc_unreachable',
        `The VSDC at ${device.vsdc_base_url} could not be reached: ${unreachableCause(result)}. Nothing was changed. If the address is wrong, correct it (${correctPath(surface)}); otherwise repeat this request once the VSDC is up.`,
        { 'retry-after': '5' },
      );
  }
}

/**
 * Takes a registered, uninitialised device as initialised elsewhere: the handed-over unit id and
 * key are checked with the authority (a call that changes nothing) and stored, with no
 * initialisation call. Refused or unreachable, the device stays as it was.
 */
export async function handOverDevice(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRow,
  branch: string,
  handover: HandoverInput,
  handshake: Handshake,
  surface: DeviceSurface = 'partner',
): Promise<DeviceResource> {
  const device = await deviceOf(db, tenant.id, branch, surface);
  if (device.initialized)
    throw new ApiError(
      'device_initialized',
      `The device of branch ${branch} is initialised already; a handover is only for a device the gateway has not initialised.`,
    );
  const claimed = await claimDeviceForInit(db, device.id, CLAIM_SECONDS * 1000);
  if (!claimed)
    throw new ApiError(
      'device_in_use',
      `The device of branch ${branch} is being initialised right now; wait for that to finish (at most a minute), then look at its state again.`,
    );
  try {
    await verifyHandover(handshake.verify, {
      ...deviceAddress(tenant, claimed),
      ...deviceSecrets(handshake.box, sealedColumnsOf(claimed)),
      ...handedOver(handover),
    });
    return await db
      .transaction()
      .execute(async (trx) => presentDevice(await takeHandover(trx, actor, tenant, claimed, handover, handshake.box)));
  } catch (err) {
    await releaseDeviceClaim(db, device.id);
    throw err;
  }
}
