import { iso } from '../../../platform/lib/time.ts';
import type { NoticeResource } from './schemas.ts';
import type { NoticeRow } from './store.ts';

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
