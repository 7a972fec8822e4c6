// Correcting and removing a device: its serial, address and previous last number only before
// initialisation, its API credential and production mark at any time; removal only before
// initialisation, with nothing bound to it or referring to it.
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { ApiError, fieldError } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { sealApiCredential } from '../authority-rows/devices.ts';
import { credentialOf, type ApiCredentialInput } from './handover.ts';
import { presentDevice } from './present.ts';
import type { DeviceResource } from './schemas.ts';
import { deleteDeviceRows, liveCredentialsOfDevice, lockDevice, updateDeviceRow, type DeviceChanges } from './store.ts';
import { notRegistered, registerPath, type DeviceSurface, type TenantRow } from './surface.ts';

interface UpdateDeviceInput {
  vsdcBaseUrl?: string;
  deviceSerial?: string;
  lastInvoiceNo?: number;
  apiCredential?: ApiCredentialInput | null;
  production?: boolean;
}

/**
 * Locks the tenant's device for a correction or removal, refusing one the authority already
 * knows (initialised) or one whose handshake is running right now.
 */
async function lockUninitialised(
  trx: Kysely<DB>,
  tenantId: number,
  branch: string,
  surface: DeviceSurface,
  doing: 'corrected' | 'removed',
) {
  const device = await lockDevice(trx, tenantId, branch);
  if (!device) throw notRegistered(branch, surface);
  if (device.initialized) {
    throw new ApiError(
      'device_initialized',
      `The device of branch ${branch} is initialised: the authority knows it by its serial and address, so it can no longer be ${doing} here. ` +
        `To use another device or VSDC, register it under a branch the merchant has not used yet (${registerPath(surface)}); to retire this one, ask the gateway's operator.`,
    );
  }
  if (device.claimed) {
    throw new ApiError(
      'device_in_use',
      `The device of branch ${branch} is being initialised right now; wait for that to finish (at most a minute), then look at its state again.`,
    );
  }
  return device;
}

/**
 * Corrects a device: its serial, address and previous last number before initialisation (the
 * authority knows it by them after); its API credential and production mark at any time.
 */
export async function updateDevice(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRow,
  branch: string,
  input: UpdateDeviceInput,
  surface: DeviceSurface = 'partner',
  box?: SecretBox,
): Promise<DeviceResource> {
  const local = input.vsdcBaseUrl !== undefined || input.deviceSerial !== undefined || input.lastInvoiceNo !== undefined;
  if (!local && input.apiCredential === undefined && input.production === undefined) {
    throw fieldError(
      'vsdcBaseUrl',
      'Send vsdcBaseUrl, deviceSerial, lastInvoiceNo, apiCredential or production: the fields to correct. The branch itself cannot change: remove the device and register the right branch.',
    );
  }
  if (input.apiCredential && !box) throw new Error("setting a device's API credential needs the SecretBox");
  return db.transaction().execute(async (trx) => {
    const device = local ? await lockUninitialised(trx, tenant.id, branch, surface, 'corrected') : await lockDevice(trx, tenant.id, branch);
    if (!device) throw notRegistered(branch, surface);
    const changes: DeviceChanges = {};
    if (input.vsdcBaseUrl !== undefined && input.vsdcBaseUrl.trim() !== device.vsdc_base_url)
      changes.vsdc_base_url = input.vsdcBaseUrl.trim();
    if (input.deviceSerial !== undefined && input.deviceSerial.trim() !== device.device_serial)
      changes.device_serial = input.deviceSerial.trim();
    if (input.lastInvoiceNo !== undefined && input.lastInvoiceNo !== device.last_invoice_no) changes.last_invoice_no = input.lastInvoiceNo;
    if (input.production !== undefined && input.production !== device.production) changes.production = input.production;
    if (input.apiCredential === null && device.api_credential_sealed !== null)
      Object.assign(changes, { api_credential_sealed: null, api_credential_kind: null });
    if (input.apiCredential) {
      const credential = credentialOf(input.apiCredential)!;
      Object.assign(changes, {
        api_credential_sealed: sealApiCredential(box!, device.id, credential),
        api_credential_kind: credential.kind,
      });
    }
    if (Object.keys(changes).length === 0) return presentDevice(device);
    const row = await updateDeviceRow(trx, device.id, changes);
    await recordAudit(trx, {
      actor,
      action: 'device.updated',
      tenantId: tenant.id,
      targetType: 'device',
      targetId: device.id,
      details: {
        branch,
        ...(changes.vsdc_base_url === undefined ? {} : { vsdcBaseUrl: { from: device.vsdc_base_url, to: row.vsdc_base_url } }),
        ...(changes.device_serial === undefined ? {} : { deviceSerial: { from: device.device_serial, to: row.device_serial } }),
        ...(changes.last_invoice_no === undefined ? {} : { lastInvoiceNo: { from: device.last_invoice_no, to: row.last_invoice_no } }),
        ...(changes.production === undefined ? {} : { production: { from: device.production, to: row.production } }),
        // The credential's kind only: never a secret in the audit log.
        ...(changes.api_credential_sealed === undefined
          ? {}
          : { apiCredential: { from: device.api_credential_kind, to: row.api_credential_kind } }),
      },
    });
    return presentDevice(row);
  });
}

/** What a record that refers to a device is, for the refusal to remove it. */
const RECORD_NAMES: Record<string, string> = {
  sales: 'documents',
  customers: 'customer registrations',
  items: 'item registrations',
  import_items: 'customs import lines',
  stock_movements: 'stock movements',
  stock_levels: 'stock levels',
  purchases: 'purchases',
  daily_reports: 'daily reports',
  reconciliation_runs: 'reconciliations',
  branch_users: 'branch user registrations',
};

function referringTable(err: unknown): string | null {
  if (typeof err !== 'object' || err === null || (err as { code?: unknown }).code !== '23503') return null;
  const { table, detail } = err as { table?: unknown; detail?: unknown };
  if (typeof table === 'string' && table !== 'devices') return table;
  const match = typeof detail === 'string' ? /from table "([a-z_]+)"/.exec(detail) : null;
  return match?.[1] ?? 'other records';
}

/**
 * Removes a device that is not initialised, with its working state, in one transaction; refused
 * (409, nothing changed) while a live fiscalisation key or till login is bound to it or a record
 * refers to it.
 */
export async function removeDevice(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRow,
  branch: string,
  surface: DeviceSurface = 'partner',
): Promise<{ deleted: true; branch: string }> {
  try {
    return await db.transaction().execute(async (trx) => {
      const device = await lockUninitialised(trx, tenant.id, branch, surface, 'removed');
      const live = await liveCredentialsOfDevice(trx, device.id);
      const bound = [
        ...(live.keys.length > 0
          ? [`fiscalisation key${live.keys.length === 1 ? '' : 's'} ${live.keys.join(', ')} (revoke: DELETE …/api-keys/{id})`]
          : []),
        ...(live.tillLogins.length > 0
          ? [`till login${live.tillLogins.length === 1 ? '' : 's'} ${live.tillLogins.join(', ')} (delete: DELETE …/till-logins/{id})`]
          : []),
      ];
      if (bound.length > 0) {
        throw new ApiError(
          'device_in_use',
          `Branch ${branch} still has live credentials bound to it: ${bound.join(' and ')}. End them first, then remove the device.`,
        );
      }
      await deleteDeviceRows(trx, device.id);
      await recordAudit(trx, {
        actor,
        action: 'device.removed',
        tenantId: tenant.id,
        targetType: 'device',
        targetId: device.id,
        details: { branch, deviceSerial: device.device_serial, vsdcBaseUrl: device.vsdc_base_url },
      });
      return { deleted: true as const, branch };
    });
  } catch (err) {
    const table = referringTable(err);
    if (table === null) throw err;
    throw new ApiError(
      'device_in_use',
      `The merchant's ${RECORD_NAMES[table] ?? table.replace(/_/g, ' ')} refer to the device of branch ${branch}; those are kept, so the device cannot be removed.`,
    );
  }
}
