import type { TillLoginVsdcRegistration, UserVsdcRegistration } from './schemas.ts';
import type { BranchRegistration } from './store.ts';

/** A console user's registration over its branches: failed before pending before registered; none without a branch. */
export function presentUserRegistration(rows: BranchRegistration[] = []): UserVsdcRegistration {
  const states = new Set(rows.map((r) => r.state));
  const state = states.has('failed') ? 'failed' : states.has('pending') ? 'pending' : states.has('registered') ? 'registered' : 'none';
  return { state, branches: rows.map((r) => ({ branch: r.branch, state: r.state, resultCode: r.resultCode, message: r.message })) };
}

/** A till login's registration at its one branch; none while the branch is not initialised. */
export function presentTillLoginRegistration(rows: BranchRegistration[] = []): TillLoginVsdcRegistration {
  const row = rows[0];
  return row ? { state: row.state, resultCode: row.resultCode, message: row.message } : { state: 'none', resultCode: null, message: null };
}
