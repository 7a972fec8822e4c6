// The taxpayer's branches (`selectBranches`) and the users registered on a branch
// (`saveBrancheUser`).
import { formatVsdcDateTime, VSDC_EPOCH, type BranchRecord, type SaveBranchUserRequest } from '@fiscal-gateway/vsdc-protocol';
import type { DeviceRecord } from './device.js';
import { checkYesNo, missingField, ok, selectChanged, withoutChangedAt, type Body, type EndpointContext, type Reply } from './replies.js';

/** A device's branch as the authority registers it (the values `selectInitInfo` reports). */
export function branchDetails(record: DeviceRecord): BranchRecord {
  return {
    tin: record.tpin,
    bhfId: record.bhfId,
    bhfNm: record.bhfNm,
    bhfSttsCd: '01',
    bhfOpenDt: '20240101',
    prvncNm: 'LUSAKA PROVINCE',
    dstrtNm: 'LUSAKA',
    sctrNm: 'LUSAKA CENTRAL',
    locDesc: 'Cairo Road',
    hqYn: record.bhfId === '000' ? 'Y' : 'N',
    mgrNm: 'Branch Manager',
    mgrTelNo: '0977000000',
    mgrEmail: 'manager@example.zm',
  };
}

/** Every installed branch of the caller's TPIN, from the moment it was installed. */
export function selectBranches(body: Body, { state, device }: EndpointContext): Reply {
  const branches = [...state.devices.values()]
    .filter((d) => d.record.tpin === device.record.tpin && d.record.installed)
    .sort((a, b) => a.record.bhfId.localeCompare(b.record.bhfId))
    .map((d) => ({ ...branchDetails(d.record), changedAt: d.record.installedAt ?? VSDC_EPOCH }));
  return selectChanged(body, branches, withoutChangedAt, 'bhfList');
}

/** Registers or replaces (by `userId`) a user of the branch. */
export function saveBranchUser(body: Body, { device, state, now }: EndpointContext): Reply {
  const problem = missingField(body, ['userId', 'userNm', 'useYn']) ?? checkYesNo(body.useYn, 'useYn');
  if (problem) return problem;
  const { tpin: _tpin, bhfId: _bhfId, ...user } = body as unknown as SaveBranchUserRequest & { tpin: string; bhfId: string };
  const users = device.record.branchUsers;
  const stored = { ...user, changedAt: formatVsdcDateTime(now) };
  const at = users.findIndex((u) => u.userId === user.userId);
  if (at >= 0) users[at] = stored;
  else users.push(stored);
  state.changed();
  return ok();
}
