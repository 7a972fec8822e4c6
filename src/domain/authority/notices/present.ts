import { iso } from '../../../platform/lib/time.ts';
import type { NoticeResource } from './schemas.ts';
import type { AuthorityBranchResource } from '../../kernel/devices/schemas.ts';
import type { AuthorityBranchRow, NoticeRow } from './store.ts';

export function presentNotice(row: NoticeRow): NoticeResource {
  return {
    id: row.id,
    noticeNo: Number(row.notice_no),
    title: row.title,
    content: row.content,
    detailUrl: row.detail_url,
    registeredBy: row.registered_by,
    registeredAt: iso(row.registered_at),
    receivedAt: row.received_at.toISOString(),
  };
}

/** `registeredBranches`: the branches the merchant has a device registered for. */
export function presentAuthorityBranch(row: AuthorityBranchRow, registeredBranches: ReadonlySet<string>): AuthorityBranchResource {
  return {
    branch: row.branch,
    name: row.name,
    location: row.location,
    province: row.province,
    district: row.district,
    sector: row.sector,
    headquarters: row.headquarters,
    status: row.status_code,
    openedOn: row.opened_on,
    registeredDevice: registeredBranches.has(row.branch),
    updatedAt: row.received_at.toISOString(),
  };
}
