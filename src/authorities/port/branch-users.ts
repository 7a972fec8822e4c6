// Who issues documents at a branch, registered with the authority through the branch's device.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Sent } from './outcomes.ts';

export interface BranchUser {
  /** The gateway's id of the user at the authority (`U12` a console user, `T7` a till login). */
  id: string;
  /** Already cut to the length the authority holds. */
  name: string;
  /** False withdraws the user. */
  active: boolean;
}

export interface BranchUsersPort {
  /** Registers the user at the device's branch, or changes it (the same id again). */
  register(device: AuthorityDevice, user: BranchUser, options?: CallOptions): Promise<Sent>;
}
