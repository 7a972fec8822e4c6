// Where a claimed row is sent: its branch's device, as its authority's adapter reaches it, with
// the secrets it carries (the unit's key, an API gateway's credential) opened from their sealed
// columns in the process, never in a statement of their own.
import { sql, type RawBuilder } from 'kysely';
import { profileOf } from '../../../authorities/index.ts';
import type { AuthorityDevice } from '../../../authorities/port/index.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

/** A device's credential for an API gateway in front of its authority, as the adapter takes it. */
export type DeviceApiCredential = NonNullable<AuthorityDevice['apiCredential']>;

/** What a device carries beyond its address: opened from the sealed columns. */
export type DeviceSecrets = Pick<AuthorityDevice, 'unitKey' | 'apiCredential' | 'production'>;

/** The sealed columns of a device row, under the names every statement here selects them as. */
export interface SealedDeviceColumns {
  device_key_id: number;
  device_unit_key_sealed: string | null;
  device_api_credential_sealed: string | null;
  device_production: boolean;
}

/** The select-list of SealedDeviceColumns from a devices alias (`d`). */
export function sealedDeviceColumns(alias: string): RawBuilder<unknown> {
  const c = (name: string) => sql.ref(`${alias}.${name}`);
  return sql`${c('id')} as device_key_id, ${c('unit_key_sealed')} as device_unit_key_sealed, ${c('api_credential_sealed')} as device_api_credential_sealed, ${c('production')} as device_production`;
}

// The AAD binds each sealed value to its device and its purpose: copied onto another row, it does not open.
const unitKeyAad = (deviceId: number) => `device:${deviceId}:unit-key`;
const apiCredentialAad = (deviceId: number) => `device:${deviceId}:api-credential`;

export function sealUnitKey(box: SecretBox, deviceId: number, unitKey: string): string {
  return box.seal(unitKey, unitKeyAad(deviceId));
}

export function sealApiCredential(box: SecretBox, deviceId: number, credential: DeviceApiCredential): string {
  return box.seal(JSON.stringify(credential), apiCredentialAad(deviceId));
}

/** The device's secrets, opened (503 `secret_unreadable` when sealed with another SECRET_KEY). */
export function deviceSecrets(box: SecretBox, row: SealedDeviceColumns): DeviceSecrets {
  const id = Number(row.device_key_id);
  return {
    unitKey: row.device_unit_key_sealed === null ? null : box.open(row.device_unit_key_sealed, unitKeyAad(id)),
    apiCredential:
      row.device_api_credential_sealed === null
        ? null
        : (JSON.parse(box.open(row.device_api_credential_sealed, apiCredentialAad(id))) as DeviceApiCredential),
    production: row.device_production,
  };
}

/** The columns `withAuthorityDevice` adds to a row. */
export interface AuthorityDeviceColumns extends SealedDeviceColumns {
  vsdc_base_url: string;
  branch: string;
  tenant_tpin: string;
  tenant_authority: string;
  device_protocol: string;
  device_sdc_id: string | null;
  device_mrc_no: string | null;
}

/** The select-list of AuthorityDeviceColumns from a devices alias and a tenants alias. */
export function authorityDeviceColumns(device: string, tenant: string): RawBuilder<unknown> {
  const d = (name: string) => sql.ref(`${device}.${name}`);
  const t = (name: string) => sql.ref(`${tenant}.${name}`);
  return sql`${d('vsdc_base_url')}, ${d('branch')}, ${t('tpin')} as tenant_tpin, ${t('authority')} as tenant_authority,
      ${d('protocol')} as device_protocol, ${d('sdc_id')} as device_sdc_id, ${d('mrc_no')} as device_mrc_no, ${sealedDeviceColumns(device)}`;
}

/** AuthorityDeviceColumns as a query builder's select-list, over `devices as d` joined to `tenants as t`. */
export const AUTHORITY_DEVICE_SELECT = [
  'd.vsdc_base_url',
  'd.branch',
  't.tpin as tenant_tpin',
  't.authority as tenant_authority',
  'd.protocol as device_protocol',
  'd.sdc_id as device_sdc_id',
  'd.mrc_no as device_mrc_no',
  'd.id as device_key_id',
  'd.unit_key_sealed as device_unit_key_sealed',
  'd.api_credential_sealed as device_api_credential_sealed',
  'd.production as device_production',
] as const;

/** The rows of `from` (a CTE of a table with `device_id` and `tenant_id`) with their AuthorityDeviceColumns. */
export function withAuthorityDevice(from: string): RawBuilder<unknown> {
  return sql`
    select ${sql.ref(from)}.*, ${authorityDeviceColumns('d', 't')}
    from ${sql.table(from)}
    join devices d on d.id = ${sql.ref(from)}.device_id
    join tenants t on t.id = ${sql.ref(from)}.tenant_id`;
}

/** The device a row claimed through withAuthorityDevice is sent to. */
export function authorityDeviceOf(row: AuthorityDeviceColumns, box: SecretBox): AuthorityDevice {
  return {
    profile: profileOf(row.tenant_authority, row.device_protocol),
    baseUrl: row.vsdc_base_url,
    tpin: row.tenant_tpin,
    branch: row.branch,
    sdcId: row.device_sdc_id,
    mrcNo: row.device_mrc_no,
    ...deviceSecrets(box, row),
  };
}
