import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../../platform/http/schema-helpers.ts';

const Text = Nullable(Type.String());

// ---- requests ----

export const ListNoticesQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
});
export type ListNoticesQuery = Static<typeof ListNoticesQuery>;

// ---- resources ----

export const Notice = Type.Object({
  id: Type.Integer({ description: 'The gateway\'s id of the notice' }),
  noticeNo: Type.Integer({ description: 'The authority\'s notice number (noticeNo); each is stored once' }),
  title: Text,
  content: Text,
  detailUrl: Nullable(Type.String({ description: 'Where the authority publishes the whole notice (dtlUrl)' })),
  registeredBy: Nullable(Type.String({ description: 'Who at the authority published it (regrNm)' })),
  registeredAt: Nullable(Timestamp('When the authority published it (regDt); null when the VSDC sent no readable date')),
  receivedAt: Timestamp('When the gateway first pulled it'),
});
export type NoticeResource = Static<typeof Notice>;

export const AuthorityBranch = Type.Object(
  {
    branch: Type.String({ description: 'The branch id (bhfId)' }),
    name: Text,
    location: Nullable(Type.String({ description: 'The branch\'s address as the authority records it (locDesc)' })),
    province: Text,
    district: Text,
    sector: Text,
    headquarters: Type.Boolean({ description: 'hqYn' }),
    status: Nullable(Type.String({ description: 'The authority\'s branch status code (bhfSttsCd; 01 active); null when it sends none' })),
    openedOn: Nullable(Type.String({ description: 'bhfOpenDt as sent (YYYYMMDD)' })),
    registeredDevice: Type.Boolean({ description: 'Whether a device of this merchant is registered with the gateway for the branch' }),
    updatedAt: Timestamp('When the authority last reported the branch'),
  },
  { description: 'One of the taxpayer\'s branches as the authority reports them (selectBranches)' },
);
export type AuthorityBranchResource = Static<typeof AuthorityBranch>;

export const AuthorityBranches = Type.Array(AuthorityBranch, {
  description:
    'The taxpayer\'s branches as the authority knows them (selectBranches), learnt at the first device initialisation and refreshed daily (BRANCH_SYNC_INTERVAL); empty until a device is initialised',
});
