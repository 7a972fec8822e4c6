// Registering a device, checked against its merchant's authority (branch form, protocol), and the
// handshake a device's life with its authority goes through.
import type { Kysely } from 'kysely';
import type { AuthorityDevice, Initialisation, Rejected, Unreachable } from '../../../authorities/port/index.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import { ApiError, FieldErrors } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { presentDevice } from './present.ts';
import type { DeviceResource } from './schemas.ts';
import type { DeviceProtocol } from '../../../platform/db/tables/foundation.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { branchProblem, knowsAuthority, oneOf, protocolsOf } from './authorities.ts';
import {
  credentialOf,
  deviceAddress,
  handedOver,
  storeApiCredential,
  takeHandover,
  verifyHandover,
  type ApiCredentialInput,
  type HandoverInput,
} from './handover.ts';
import { findDevice, insertDevice } from './store.ts';
import type { TenantRow } from './surface.ts';

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
export async function registerDevice(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRow,
  input: RegisterDeviceInput,
  handshake?: Handshake,
): Promise<DeviceResource> {
  const protocol = checkDeviceInput(tenant, input);
  const exists = () =>
    new ApiError(
      'branch_exists',
      `Branch ${input.branch} is already registered for this merchant; the existing device keeps its serial and VSDC address.`,
    );
  if ((input.initializedElsewhere || input.apiCredential) && !handshake)
    throw new Error('registering a device with secrets needs the handshake (its SecretBox)');
  const handover = input.initializedElsewhere;
  if (handover) {
    if (await findDevice(db, tenant.id, input.branch)) throw exists();
    const device = {
      ...deviceAddress(tenant, { branch: input.branch, protocol, vsdc_base_url: input.vsdcBaseUrl.trim() }),
      production: input.production ?? false,
      ...handedOver(handover),
      apiCredential: credentialOf(input.apiCredential),
    };
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
        details: {
          branch: row.branch,
          deviceSerial: row.device_serial,
          protocol: row.protocol,
          production: row.production,
          lastInvoiceNo: row.last_invoice_no,
          apiCredential: row.api_credential_kind,
          handedOver: handover !== undefined,
        },
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
  if (!knowsAuthority(tenant.authority))
    throw new Error(`no authority profile for the authority ${tenant.authority} (src/authorities/index.ts)`);
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
    errors.add(
      'protocol',
      `The protocol field must be ${oneOf(protocols)} for a merchant of ${merchantProfile(authority).name} (authority ${authority}).`,
    );
  }
  return errors;
}
