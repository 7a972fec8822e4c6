// Where a claimed row is sent: its branch's device, as its authority's adapter reaches it.
import { sql, type RawBuilder } from 'kysely';
import { profileOf } from '../../../authorities/index.ts';
import type { AuthorityDevice } from '../../../authorities/port/index.ts';

/** The columns `withAuthorityDevice` adds to a row. */
export interface AuthorityDeviceColumns {
  vsdc_base_url: string;
  branch: string;
  tenant_tpin: string;
  tenant_authority: string;
  device_protocol: string;
  device_sdc_id: string | null;
  device_mrc_no: string | null;
}

/** The rows of `from` (a CTE of a table with `device_id` and `tenant_id`) with their AuthorityDeviceColumns. */
export function withAuthorityDevice(from: string): RawBuilder<unknown> {
  return sql`
    select ${sql.ref(from)}.*, d.vsdc_base_url, d.branch, t.tpin as tenant_tpin, t.authority as tenant_authority,
      d.protocol as device_protocol, d.sdc_id as device_sdc_id, d.mrc_no as device_mrc_no
    from ${sql.table(from)}
    join devices d on d.id = ${sql.ref(from)}.device_id
    join tenants t on t.id = ${sql.ref(from)}.tenant_id`;
}

/** The device a row claimed through withAuthorityDevice is sent to. */
export function authorityDeviceOf(row: AuthorityDeviceColumns): AuthorityDevice {
  return { profile: profileOf(row.tenant_authority, row.device_protocol), baseUrl: row.vsdc_base_url, tpin: row.tenant_tpin, branch: row.branch, sdcId: row.device_sdc_id, mrcNo: row.device_mrc_no };
}
