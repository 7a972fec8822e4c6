import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';
import type { RetryColumns } from './items.ts';

export type BranchUserState = 'pending' | 'registered' | 'failed';

/**
 * A person who issues documents at a branch, registered with the branch's VSDC
 * (`saveBrancheUser`): a console user (at every initialised branch of its merchant) or a till
 * login (at its branch). Exactly one of `user_id` and `till_login_id` is set.
 */
interface BranchUsersTable extends RetryColumns {
  id: Generated<number>;
  tenant_id: number;
  device_id: number;
  user_id: number | null;
  till_login_id: number | null;
  /** The VSDC's `userId`: `U<users.id>` or `T<till_logins.id>` (at most 20 characters). */
  vsdc_user_id: string;
  /** The VSDC's `userNm`: the email or the till username, cut to 60 characters. */
  user_name: string;
  /** `Y` while the user or login is active, `N` once removed. */
  use_yn: 'Y' | 'N';
  state: BranchUserState;
  result_code: string | null;
  result_message: string | null;
  /** Bumped when what is filed changes, so an answer about older data settles nothing. */
  revision: Generated<number>;
  registered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BranchUserTables {
  branch_users: BranchUsersTable;
}
