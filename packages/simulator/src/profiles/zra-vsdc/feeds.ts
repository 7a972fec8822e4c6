// What the authority publishes to a taxpayer and the simulator seeds through its control API:
// notices (`selectNotices`) and the principals an RVAT agent sells for (`selectPrincipals`).
import { formatVsdcDateTime, type Notice, type Principal } from '@fiscal-gateway/vsdc-protocol';
import type { DeviceRecord, NoticeRecord, PrincipalRecord } from './device.js';
import { selectChanged, withoutChangedAt, type Body, type EndpointContext, type Reply } from './replies.js';

export function selectNotices(body: Body, { device }: EndpointContext): Reply {
  return selectChanged(body, device.record.notices, withoutChangedAt, 'noticeList');
}

export function selectPrincipals(body: Body, { device }: EndpointContext): Reply {
  return selectChanged(body, device.record.principals, withoutChangedAt, 'taxpayerPrincipalList');
}

/** Seeded notices, numbered after the device's last (a known `noticeNo` replaces); omitted fields get plausible values. */
export function seedNotices(record: DeviceRecord, given: readonly Partial<Notice>[], now: Date): NoticeRecord[] {
  const changedAt = formatVsdcDateTime(now);
  let next = record.notices.reduce((max, n) => Math.max(max, n.noticeNo), 0);
  const added = given.map((notice): NoticeRecord => {
    next += 1;
    return {
      ...notice,
      noticeNo: notice.noticeNo ?? next,
      title: notice.title ?? `Notice ${next}`,
      cont: notice.cont ?? 'Taxpayers are reminded to submit their returns on time.',
      dtlUrl: notice.dtlUrl ?? null,
      regrNm: notice.regrNm ?? 'ZRA',
      regDt: notice.regDt ?? changedAt,
      changedAt,
    };
  });
  upsert(record.notices, added, (a, b) => a.noticeNo === b.noticeNo);
  return added;
}

/** A seeded entry with a known number replaces the earlier one. */
function upsert<T>(list: T[], added: readonly T[], same: (a: T, b: T) => boolean): void {
  for (const entry of added) {
    const at = list.findIndex((existing) => same(existing, entry));
    if (at >= 0) list[at] = entry;
    else list.push(entry);
  }
}

/** Seeded principals; `id` continues the device's last, omitted fields get plausible values. */
export function seedPrincipals(record: DeviceRecord, given: readonly Partial<Principal>[], now: Date): PrincipalRecord[] {
  const changedAt = formatVsdcDateTime(now);
  let next = record.principals.reduce((max, p) => Math.max(max, p.id), 0);
  const added = given.map((principal): PrincipalRecord => {
    next += 1;
    const id = principal.id ?? next;
    return {
      ...principal,
      id,
      tpin: principal.tpin ?? String(2_100_000_000 + id),
      principalNm: principal.principalNm ?? `Principal ${id} Limited`,
      principalAddress: principal.principalAddress ?? 'Lusaka',
      principalEmail: principal.principalEmail ?? null,
      principalTelNo: principal.principalTelNo ?? null,
      accountNo: principal.accountNo ?? null,
      regDt: principal.regDt ?? changedAt,
      modDt: principal.modDt ?? null,
      changedAt,
    };
  });
  upsert(record.principals, added, (a, b) => a.id === b.id);
  return added;
}
