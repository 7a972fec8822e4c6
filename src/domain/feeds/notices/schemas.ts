import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../../platform/http/schema-helpers.ts';
import { Text } from '../../kernel/devices/schemas.ts';

export const ListNoticesQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
});
export type ListNoticesQuery = Static<typeof ListNoticesQuery>;

// ---- resources ----

export const Notice = Type.Object({
  id: Type.Integer({ description: "The gateway's id of the notice" }),
  noticeNo: Type.Integer({ description: "The authority's notice number (noticeNo); each is stored once" }),
  title: Text,
  content: Text,
  detailUrl: Nullable(Type.String({ description: 'Where the authority publishes the whole notice (dtlUrl)' })),
  registeredBy: Nullable(Type.String({ description: 'Who at the authority published it (regrNm)' })),
  registeredAt: Nullable(Timestamp('When the authority published it (regDt); null when the VSDC sent no readable date')),
  receivedAt: Timestamp('When the gateway first pulled it'),
});
export type NoticeResource = Static<typeof Notice>;
