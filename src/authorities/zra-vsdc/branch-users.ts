// Zambia's branch users: `saveBrancheUser` `{userId, userNm, adrs, useYn, regr*/modr*}`. No
// password is ever sent: the gateway holds none in plain, and the VSDC does not sign anyone in.
import type { SaveBranchUserRequest } from '@fiscal-gateway/vsdc-protocol';
import type { BranchUser, BranchUsersPort } from '../port/branch-users.ts';
import { sentOf, targetOf } from './calls.ts';
import type { VsdcClient } from './client.ts';
import { GATEWAY_REGISTRANT_FIELDS } from './registrant.ts';

export function saveBranchUserBody(user: BranchUser): SaveBranchUserRequest {
  return { userId: user.id, userNm: user.name, adrs: null, useYn: user.active ? 'Y' : 'N', ...GATEWAY_REGISTRANT_FIELDS };
}

export function branchUsersPort(client: VsdcClient): BranchUsersPort {
  return {
    async register(device, user, options) {
      return sentOf(await client.saveBrancheUser(targetOf(device), saveBranchUserBody(user), options));
    },
  };
}
