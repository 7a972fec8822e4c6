import type { TillLoginResource } from './till-login-schemas.ts';
import type { TillLoginRow } from './till-login-store.ts';
import { iso } from '../../../platform/lib/time.ts';
import { presentTillLoginRegistration } from '../../kernel/branch-users/present.ts';
import type { BranchRegistration } from '../../kernel/branch-users/store.ts';

export function presentTillLogin(row: TillLoginRow, registration: BranchRegistration[] | undefined): TillLoginResource {
  return {
    id: row.id,
    username: row.username,
    branch: row.branch,
    sdcId: row.sdcId,
    dialect: row.dialect,
    activeKeyId: row.activeKeyId,
    createdAt: row.createdAt.toISOString(),
    lastLoginAt: iso(row.lastLoginAt),
    vsdcRegistration: presentTillLoginRegistration(registration),
  };
}
