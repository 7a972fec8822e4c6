// The authority's register of a taxpayer's branches, as the domain keeps it beside the devices the
// merchant registered.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Pulled } from './outcomes.ts';

/** A branch as the authority's register holds it; what it did not say is null. */
export interface AuthorityBranch {
  /** The branch, as the authority numbers it (the profile's `branch` form). */
  branch: string;
  name: string | null;
  statusCode: string | null;
  openedOn: string | null;
  province: string | null;
  district: string | null;
  sector: string | null;
  location: string | null;
  headquarters: boolean;
  managerName: string | null;
  managerPhone: string | null;
  managerEmail: string | null;
  /** The authority's record as it came, kept as is. */
  record: unknown;
}

export interface RegisterPort {
  /**
   * The taxpayer's branches (the device's taxpayer) changed since `cursor` (null: every one). A
   * record without a branch the profile's form accepts is left out.
   */
  branches(device: AuthorityDevice, cursor: string | null, options?: CallOptions): Promise<Pulled<AuthorityBranch>>;
}
