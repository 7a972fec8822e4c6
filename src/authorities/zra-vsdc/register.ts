// Zambia's register of a taxpayer's branches (`selectBranches`, its list under `bhfList`), read as
// received: a record is kept whenever its `bhfId` is a branch the profile accepts.
import type { BranchRecord } from '@fiscal-gateway/vsdc-protocol';
import type { AuthorityProfile } from '../port/profile.ts';
import type { AuthorityBranch, RegisterPort } from '../port/register.ts';
import { lastReqDtOf, pulledOf, targetOf } from './calls.ts';
import type { VsdcClient } from './client.ts';
import { receivedList, receivedText } from '../received.ts';

/** A branch record as the domain keeps it, or undefined when its `bhfId` is not a branch. */
export function branchOf(raw: BranchRecord, form: AuthorityProfile['branch']): AuthorityBranch | undefined {
  const branch = receivedText(raw.bhfId);
  if (branch === null || !form.pattern.test(branch)) return undefined;
  return {
    branch,
    name: receivedText(raw.bhfNm),
    statusCode: receivedText(raw.bhfSttsCd),
    openedOn: receivedText(raw.bhfOpenDt),
    province: receivedText(raw.prvncNm),
    district: receivedText(raw.dstrtNm),
    sector: receivedText(raw.sctrNm),
    location: receivedText(raw.locDesc),
    headquarters: receivedText(raw.hqYn)?.toUpperCase() === 'Y',
    managerName: receivedText(raw.mgrNm),
    managerPhone: receivedText(raw.mgrTelNo),
    managerEmail: receivedText(raw.mgrEmail),
    record: raw,
  };
}

export function registerPort(client: VsdcClient, profile: Pick<AuthorityProfile, 'branch'>): RegisterPort {
  return {
    async branches(device, cursor, options) {
      const outcome = await client.selectBranches(targetOf(device), { lastReqDt: lastReqDtOf(cursor) }, options);
      return pulledOf(outcome, (data) => receivedList<BranchRecord>(data, 'bhfList').flatMap((raw) => branchOf(raw, profile.branch) ?? []));
    },
  };
}
