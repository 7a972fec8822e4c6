import type { PrincipalRow } from '../../merchant/principals/store.ts';
import type { PrincipalResource } from './schemas.ts';

export function presentPrincipal(row: PrincipalRow): PrincipalResource {
  return {
    id: row.principal_id,
    tpin: row.tpin,
    name: row.name,
    address: row.address,
    email: row.email,
    telNo: row.tel,
    accountNo: row.account_no,
    updatedAt: row.updated_at.toISOString(),
  };
}
