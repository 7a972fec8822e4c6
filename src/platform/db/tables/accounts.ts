import type { Generated } from 'kysely';
import type { NullableTimestamp, RequiredTimestamp, Timestamp } from './columns.ts';

export type UserRole = 'owner' | 'admin' | 'viewer';
export type UserTokenKind = 'verify' | 'reset' | 'invitation';

/** A person of one merchant (docs/merchants.md). */
export interface UsersTable {
  id: Generated<number>;
  tenant_id: number;
  email: string;
  /** `scrypt$N$r$p$salt$hash` (src/credentials/passwords.ts). */
  password_hash: string;
  role: UserRole;
  email_verified_at: NullableTimestamp;
  password_changed_at: NullableTimestamp;
  /** Removed by an owner or admin: kept for the audit log, never signs in again. */
  removed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface UserSessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  user_id: number;
  created_at: RequiredTimestamp;
  last_seen_at: RequiredTimestamp;
  expires_at: RequiredTimestamp;
  revoked_at: NullableTimestamp;
  ip: string | null;
  user_agent: string | null;
}

/** One-time links: verify an email, reset a password, accept an invitation. */
export interface UserTokensTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the link's token. */
  token_hash: string;
  kind: UserTokenKind;
  tenant_id: number;
  user_id: number | null;
  email: string;
  /** The role an invitation grants. */
  role: UserRole | null;
  /** Who created it, as `type:id` (an invitation's user or partner key). */
  created_by: string | null;
  created_at: RequiredTimestamp;
  expires_at: RequiredTimestamp;
  used_at: NullableTimestamp;
}

interface SigninFailuresTable {
  id: Generated<number>;
  /** The email tried, lower-cased (whether or not an account has it). */
  email: string;
  ip: string;
  created_at: RequiredTimestamp;
}

export interface AccountTables {
  users: UsersTable;
  user_sessions: UserSessionsTable;
  user_tokens: UserTokensTable;
  signin_failures: SigninFailuresTable;
}
