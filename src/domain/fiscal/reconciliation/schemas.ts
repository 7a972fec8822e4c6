import { Type, type Static } from 'typebox';
import { PageMeta } from '../../../platform/http/pagination.ts';
import { Nullable, Timestamp, literals, withExample } from '../../../platform/http/schema-helpers.ts';

const OUTCOMES = ['match', 'mismatch', 'unknown', 'adopted', 'not_filed'] as const;
const OUTCOME_FILTERS = ['attention', 'all', ...OUTCOMES] as const;

const Day = (description: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    description: `${description} (YYYY-MM-DD, a UTC day of the documents' occurredAt; inclusive)`,
  });

export const CreateReconciliationBody = withExample(
  Type.Object(
    {
      branch: Type.String({ pattern: '^[0-9A-Za-z]{3}$', description: 'The branch (bhfId) whose documents are compared with its VSDC' }),
      from: Day('First day'),
      to: Day('Last day, at most 366 days after `from`'),
    },
    { additionalProperties: false },
  ),
  { branch: '000', from: '2026-01-01', to: '2026-12-31' },
);
export type CreateReconciliationBody = Static<typeof CreateReconciliationBody>;

export const TenantParam = Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export const RunParam = Type.Object({ reconciliation: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const ListRunsQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  branch: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{3}$', description: 'Only this branch' })),
});
export type ListRunsQuery = Static<typeof ListRunsQuery>;

export const RunQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page of the results, from 1; 20 a page.' }),
  outcome: Type.Optional(
    literals(OUTCOME_FILTERS, { description: '`attention` (default): mismatch, unknown and adopted; `all`; or one outcome' }),
  ),
});
export type RunQuery = Static<typeof RunQuery>;

const Progress = Type.Object({
  total: Type.Integer({ description: 'Documents listed for checking when the run started' }),
  checked: Type.Integer(),
  matches: Type.Integer(),
  mismatches: Type.Integer(),
  unknown: Type.Integer({ description: 'Uploaded documents the VSDC does not know' }),
  adopted: Type.Integer({ description: 'Pending documents the VSDC held (a lost reply): now uploaded with its receipt' }),
  notFiled: Type.Integer({ description: 'Pending documents the VSDC does not hold either: the filer still sends them' }),
});

export const Reconciliation = Type.Object({
  id: Type.Integer(),
  tenantId: Type.Integer(),
  branch: Type.String(),
  from: Type.String(),
  to: Type.String(),
  status: literals(['queued', 'running', 'completed']),
  requestedBy: literals(['merchant', 'partner', 'admin', 'cli']),
  pendingAfterSeconds: Type.Integer({ description: 'Pending documents stored at least this long before the start were re-verified' }),
  progress: Progress,
  lastError: Nullable(Type.String({ description: 'Why the last attempt stopped (the VSDC did not answer); retried with backoff' })),
  createdAt: Timestamp(),
  startedAt: Nullable(Timestamp()),
  finishedAt: Nullable(Timestamp()),
});

export const Difference = Type.Object({
  field: literals(['receiptNo', 'receiptSignature', 'total', 'status', 'lookup']),
  ours: Type.Union([Type.String(), Type.Number(), Type.Null()]),
  theirs: Type.Union([Type.String(), Type.Number(), Type.Null()]),
});

export const ReconciliationResult = Type.Object({
  saleId: Type.Integer(),
  invoiceNo: Type.Integer(),
  outcome: literals(OUTCOMES),
  differences: Type.Array(Difference, { description: "For a mismatch: each field that differs, the gateway's value and the VSDC's" }),
  checkedAt: Timestamp(),
});

export const ReconciliationWithResults = Type.Object({
  data: Type.Object({
    ...Reconciliation.properties,
    results: Type.Array(ReconciliationResult, { description: 'One page of the checked documents (`outcome` filter), in invoice order' }),
  }),
  meta: PageMeta,
});
