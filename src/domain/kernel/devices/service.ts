import type { Kysely } from 'kysely';
import { unreachableCause } from '../../../authorities/port/outcomes.ts';
import type { AuthorityDevice, Initialisation, Rejected, Unreachable } from '../../../authorities/port/index.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import { ApiError, FieldErrors, fieldError } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { queueUsersOfNewBranch } from '../branch-users/store.ts';
import { presentDevice } from './present.ts';
import type { DeviceResource } from './schemas.ts';
import type { Selectable } from 'kysely';
import type { TenantsTable } from '../../../platform/db/tables/foundation.ts';
import { deviceSecrets, sealApiCredential, sealUnitKey } from '../authority-rows/devices.ts';
import type { DeviceProtocol } from '../../../platform/db/tables/foundation.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { branchProblem, knowsAuthority, oneOf, protocolsOf } from './authorities.ts';
import { credentialOf, deviceAddress, handedOver, sealedColumnsOf, storeApiCredential, takeHandover, verifyHandover, type ApiCredentialInput, type HandoverInput } from './handover.ts';
import { claimDeviceForInit, deleteDeviceRows, findDevice, insertDevice, liveCredentialsOfDevice, lockDevice, markDeviceInitialized, releaseDeviceClaim, updateDeviceRow, type DeviceChanges, type DeviceInitInfo, type DeviceRow } from './store.ts';

/** A device's life with its authority (kernel/devices/handshake.ts: by its adapter), and the box its secrets are sealed with. */
export interface Handshake {
  box: SecretBox;
  initialise(device: AuthorityDevice, deviceSerial: string): Promise<Initialisation>;
  /** A call that changes nothing, accepting the device as it stands (a handed-over unit id and key). */
  verify(device: AuthorityDevice): Promise<{ kind: 'ok' } | Rejected | Unreachable>;
}

export interface RegisterDeviceInput {
  deviceSerial: string;
  branch: string;
  vsdcBaseUrl: string;
  protocol?: string;
  initializedElsewhere?: HandoverInput;
  apiCredential?: ApiCredentialInput;
  production?: boolean;
  lastInvoiceNo?: number;
}

/**
 * Registers a device, checked against its merchant's authority (branch form, protocol). With
 * `initializedElsewhere` the authority is asked first (verify) and the device is stored
 * initialised, with no initialisation call; refused or unreachable, nothing is stored.
 */
export async function registerDevice(db: Kysely<DB>, actor: Actor, tenant: TenantRow, input: RegisterDeviceInput, handshake?: Handshake): Promise<DeviceResource> {
  const protocol = checkDeviceInput(tenant, input);
  const exists = () =>
    new ApiError('branch_exists', `Branch ${input.branch} is already registered for this merchant; the existing device keeps its serial and VSDC address.`);
  if ((input.initializedElsewhere || input.apiCredential) && !handshake) throw new Error('registering a device with secrets needs the handshake (its SecretBox)');
  const handover = input.initializedElsewhere;
  if (handover) {
    if (await findDevice(db, tenant.id, input.branch)) throw exists();
    const device = { ...deviceAddress(tenant, { branch: input.branch, protocol, vsdc_base_url: input.vsdcBaseUrl.trim() }), production: input.production ?? false, ...handedOver(handover), apiCredential: credentialOf(input.apiCredential) };
    await verifyHandover(handshake!.verify, device);
  }
  try {
    return await db.transaction().execute(async (trx) => {
      let row = await insertDevice(trx, {
        tenant_id: tenant.id,
        branch: input.branch,
        device_serial: input.deviceSerial.trim(),
        vsdc_base_url: input.vsdcBaseUrl.trim(),
        protocol: protocol as DeviceProtocol,
        production: input.production ?? false,
        last_invoice_no: input.lastInvoiceNo ?? 0,
      });
      if (!row) throw exists();
      if (input.apiCredential) row = await storeApiCredential(trx, handshake!.box, row.id, credentialOf(input.apiCredential)!);
      await recordAudit(trx, {
        actor,
        action: 'device.registered',
        tenantId: tenant.id,
        targetType: 'device',
        targetId: row.id,
        details: { branch: row.branch, deviceSerial: row.device_serial, protocol: row.protocol, production: row.production, lastInvoiceNo: row.last_invoice_no, apiCredential: row.api_credential_kind, handedOver: handover !== undefined },
      });
      if (handover) row = await takeHandover(trx, actor, tenant, row, handover, handshake!.box);
      return presentDevice(row);
    });
  } catch (err) {
    throw isUniqueViolation(err) ? exists() : err;
  }
}

/** The protocol the device speaks (the body's, else its authority's first); 422 naming each field of the wrong form. */
function checkDeviceInput(tenant: TenantRow, input: { branch: string; protocol?: string }): string {
  if (!knowsAuthority(tenant.authority)) throw new Error(`no authority profile for the authority ${tenant.authority} (src/authorities/index.ts)`);
  deviceInputProblems(new FieldErrors(), tenant.authority, input).throwIfAny();
  return input.protocol ?? protocolsOf(tenant.authority)[0]!;
}

/** A device's branch and protocol against its merchant's authority (read defensively: a route's hook runs it before the schema). */
export function deviceInputProblems(errors: FieldErrors, authority: string, body: { branch?: unknown; protocol?: unknown }): FieldErrors {
  if (!knowsAuthority(authority)) return errors;
  const branch = typeof body.branch === 'string' ? branchProblem('branch', authority, body.branch) : null;
  if (branch) errors.add('branch', branch);
  const protocols = protocolsOf(authority);
  if (typeof body.protocol === 'string' && !protocols.includes(body.protocol)) {
    errors.add('protocol', `The protocol field must be ${oneOf(protocols)} for a merchant of ${merchantProfile(authority).name} (authority ${authority}).`);
  }
  return errors;
}

interface UpdateDeviceInput {
  vsdcBaseUrl?: string;
  deviceSerial?: string;
  lastInvoiceNo?: number;
  apiCredential?: ApiCredentialInput | null;
  production?: boolean;
}

/** Where to register a device, said in refusals (the partner's path or the merchant's own). */
type DeviceSurface = 'partner' | 'account';

const registerPath = (surface: DeviceSurface) => (surface === 'partner' ? 'POST /api/v1/tenants/{tenant}/devices' : 'POST /api/v1/account/devices');

/**
 * Locks the tenant's device for a correction or removal, refusing one the authority already
 * knows (initialised) or one whose handshake is running right now.
 */
async function lockUninitialised(trx: Kysely<DB>, tenantId: number, branch: string, surface: DeviceSurface, doing: 'corrected' | 'removed') {
  const device = await lockDevice(trx, tenantId, branch);
  if (!device) throw notRegistered(branch, surface);
  if (device.initialized) {
    throw new ApiError('device_initialized',
      `The device of branch ${branch} is initialised: the authority knows it by its serial and address, so it can no longer be ${doing} here. ` +
        `To use another device or VSDC, register it under a branch the merchant has not used yet (${registerPath(surface)}); to retire this one, ask the gateway's operator.`,
    );
  }
  if (device.claimed) {
    throw new ApiError('device_in_use', `The device of branch ${branch} is being initialised right now; wait for that to finish (at most a minute), then look at its state again.`);
  }
  return device;
}

/**
 * Corrects a device: its serial, address and previous last number before initialisation (the
 * authority knows it by them after); its API credential and production mark at any time.
 */
export async function updateDevice(db: Kysely<DB>, actor: Actor, tenant: TenantRow, branch: string, input: UpdateDeviceInput, surface: DeviceSurface = 'partner', box?: SecretBox): Promise<DeviceResource> {
  const local = input.vsdcBaseUrl !== undefined || input.deviceSerial !== undefined || input.lastInvoiceNo !== undefined;
  if (!local && input.apiCredential === undefined && input.production === undefined) {
    throw fieldError('vsdcBaseUrl', 'Send vsdcBaseUrl, deviceSerial, lastInvoiceNo, apiCredential or production: the fields to correct. The branch itself cannot change: remove the device and register the right branch.');
  }
  if (input.apiCredential && !box) throw new Error('setting a device\'s API credential needs the SecretBox');
  return db.transaction().execute(async (trx) => {
    const device = local ? await lockUninitialised(trx, tenant.id, branch, surface, 'corrected') : await lockDevice(trx, tenant.id, branch);
    if (!device) throw notRegistered(branch, surface);
    const changes: DeviceChanges = {};
    if (input.vsdcBaseUrl !== undefined && input.vsdcBaseUrl.trim() !== device.vsdc_base_url) changes.vsdc_base_url = input.vsdcBaseUrl.trim();
    if (input.deviceSerial !== undefined && input.deviceSerial.trim() !== device.device_serial) changes.device_serial = input.deviceSerial.trim();
    if (input.lastInvoiceNo !== undefined && input.lastInvoiceNo !== device.last_invoice_no) changes.last_invoice_no = input.lastInvoiceNo;
    if (input.production !== undefined && input.production !== device.production) changes.production = input.production;
    if (input.apiCredential === null && device.api_credential_sealed !== null) Object.assign(changes, { api_credential_sealed: null, api_credential_kind: null });
    if (input.apiCredential) {
      const credential = credentialOf(input.apiCredential)!;
      Object.assign(changes, { api_credential_sealed: sealApiCredential(box!, device.id, credential), api_credential_kind: credential.kind });
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
        ...(changes.api_credential_sealed === undefined ? {} : { apiCredential: { from: device.api_credential_kind, to: row.api_credential_kind } }),
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

/** The merchant a device belongs to, as its row (kernel/tenants names it TenantRow; devices sit below tenants). */
type TenantRow = Selectable<TenantsTable>;

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
export async function removeDevice(db: Kysely<DB>, actor: Actor, tenant: TenantRow, branch: string, surface: DeviceSurface = 'partner'): Promise<{ deleted: true; branch: string }> {
  try {
    return await db.transaction().execute(async (trx) => {
      const device = await lockUninitialised(trx, tenant.id, branch, surface, 'removed');
      const live = await liveCredentialsOfDevice(trx, device.id);
      const bound = [
        ...(live.keys.length > 0 ? [`fiscalisation key${live.keys.length === 1 ? '' : 's'} ${live.keys.join(', ')} (revoke: DELETE …/api-keys/{id})`] : []),
        ...(live.tillLogins.length > 0 ? [`till login${live.tillLogins.length === 1 ? '' : 's'} ${live.tillLogins.join(', ')} (delete: DELETE …/till-logins/{id})`] : []),
      ];
      if (bound.length > 0) {
        throw new ApiError('device_in_use', `Branch ${branch} still has live credentials bound to it: ${bound.join(' and ')}. End them first, then remove the device.`);
      }
      await deleteDeviceRows(trx, device.id);
      await recordAudit(trx, { actor, action: 'device.removed', tenantId: tenant.id, targetType: 'device', targetId: device.id, details: { branch, deviceSerial: device.device_serial, vsdcBaseUrl: device.vsdc_base_url } });
      return { deleted: true as const, branch };
    });
  } catch (err) {
    const table = referringTable(err);
    if (table === null) throw err;
    throw new ApiError('device_in_use', `The merchant's ${RECORD_NAMES[table] ?? table.replace(/_/g, ' ')} refer to the device of branch ${branch}; those are kept, so the device cannot be removed.`);
  }
}

function notRegistered(branch: string, surface: DeviceSurface): ApiError {
  // The same condition answers the same shape everywhere (minting a key for the branch too).
  return new ApiError('device_not_found', `No device is registered for branch ${branch} of this merchant: register it first (${registerPath(surface)}).`);
}

async function deviceOf(db: Kysely<DB>, tenantId: number, branch: string, surface: DeviceSurface = 'partner'): Promise<DeviceRow> {
  const row = await findDevice(db, tenantId, branch);
  if (!row) throw notRegistered(branch, surface);
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
    if (Date.now() > deadline) throw new ApiError('vsdc_unreachable', 'Another initialisation of this device is still running; retry shortly.');
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

/** Where a device is corrected, said in the refusals of its handshake. */
const correctPath = (surface: DeviceSurface) => (surface === 'partner' ? 'PATCH /api/v1/tenants/{tenant}/devices/{branch}' : 'Correct device in the console, or PATCH /api/v1/account/devices/{branch}');

async function finishHandshake(db: Kysely<DB>, actor: Actor, tenant: TenantRow, device: DeviceRow, handshake: Handshake, surface: DeviceSurface): Promise<DeviceResource> {
  let result: Initialisation;
  try {
    result = await handshake.initialise({ ...deviceAddress(tenant, device), ...deviceSecrets(handshake.box, sealedColumnsOf(device)) }, device.device_serial);
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
        await recordAudit(trx, { actor, action: 'device.initialized', tenantId: tenant.id, targetType: 'device', targetId: device.id, details: { branch: device.branch, sdcId: info.sdcId } });
        return presentDevice(row ?? (await deviceOf(trx, tenant.id, device.branch)));
      });
    }
    case 'already_installed': {
      await release();
      // Another process may have finished the handshake a moment ago: that is the safe retry.
      const current = await deviceOf(db, tenant.id, device.branch);
      if (current.initialized) return presentDevice(current);
      throw new ApiError('initialization_failed', `${result.message || 'This device is already installed at the authority.'} (the VSDC at ${device.vsdc_base_url}, device serial ${device.device_serial})`);
    }
    case 'rejected':
      await release();
      // The authority's text first (spec: the message is its text); where it came from after it.
      throw new ApiError('initialization_failed', `${result.message || 'The authority refused the handshake.'} (the VSDC at ${device.vsdc_base_url}, result code ${result.code})`);
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
export async function handOverDevice(db: Kysely<DB>, actor: Actor, tenant: TenantRow, branch: string, handover: HandoverInput, handshake: Handshake, surface: DeviceSurface = 'partner'): Promise<DeviceResource> {
  const device = await deviceOf(db, tenant.id, branch, surface);
  if (device.initialized) throw new ApiError('device_initialized', `The device of branch ${branch} is initialised already; a handover is only for a device the gateway has not initialised.`);
  const claimed = await claimDeviceForInit(db, device.id, CLAIM_SECONDS * 1000);
  if (!claimed) throw new ApiError('device_in_use', `The device of branch ${branch} is being initialised right now; wait for that to finish (at most a minute), then look at its state again.`);
  try {
    await verifyHandover(handshake.verify, { ...deviceAddress(tenant, claimed), ...deviceSecrets(handshake.box, sealedColumnsOf(claimed)), ...handedOver(handover) });
    return await db.transaction().execute(async (trx) => presentDevice(await takeHandover(trx, actor, tenant, claimed, handover, handshake.box)));
  } catch (err) {
    await releaseDeviceClaim(db, device.id);
    throw err;
  }
}
