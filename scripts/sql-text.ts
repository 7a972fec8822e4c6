// The hot statements as text (docs/sql/*.sql): each compiled by Kysely from the builder its store
// function runs (`…Sql`, beside the function), in each form the code sends — the one-row and
// many-row twins, and the forms that differ by engine (on PostgreSQL a statement notifies other
// processes and the table rate-limit store counts the request in the lookup; the embedded
// database does neither). The values are samples: only those that shape the text matter, the
// others are bound as parameters ($1, $2, …). `npm run sql` (scripts/sql.ts) writes the files;
// test/platform/sql-text.test.ts fails while they differ from what the code compiles.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type RawBuilder } from 'kysely';
import type { DB } from '../src/platform/db/schema.ts';
import { findFiscalisationKeySql } from '../src/credentials/key-lookup.ts';
import { findOneTenantTokenSql, findTenantTokensSql } from '../src/credentials/tenant-token-lookup.ts';
import { insertDocumentsSql, insertOneDocumentSql } from '../src/domain/fiscal/sales/document-insert.ts';
import type { NewDocument, NewLine } from '../src/domain/fiscal/sales/document-columns.ts';
import { oldestBacklogReadSql } from '../src/domain/fiscal/sales/backlog.ts';
import type { SaleRow } from '../src/domain/fiscal/sales/store.ts';
import { branchesReadySql, claimBranchesSql } from '../src/domain/fiscal/filing/queue.ts';
import { recordManyOutcomesSql, recordOneOutcomeSql, type OutcomeOptions } from '../src/domain/fiscal/filing/outcome-store.ts';
import { FILING_CHANNEL, OUTCOME_CHANNEL } from '../src/domain/fiscal/signals/sale-signals.ts';
import { partnerLookup } from '../src/domain/partner/console/scope.ts';

/** Compiles only: the driver never runs a statement, so no database is needed. */
const compiler = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

interface Form {
  /** When the code sends this form. */
  when: string;
  statement: RawBuilder<unknown>;
}

interface SqlFile {
  /** The file's name under docs/sql/. */
  name: string;
  /** The function that runs it, and the builder it is compiled from. */
  from: string;
  what: string;
  forms: Form[];
}

const NOW = new Date('2026-12-06T08:00:00.000Z');

const LINE: NewLine = {
  line: 1,
  name: 'Maize meal 25kg',
  classification_code: '50221200',
  item_code: 'MM25',
  quantity: 2,
  price: 185,
  vat_category: 'A',
  vat_rate: 16,
  rrp: null,
  amount: 370,
  discount: 0,
  supply: null,
  net: 318.97,
  vat: 51.03,
  total: 370,
  original_line: null,
};

function documentTo(target: NewDocument['target']): NewDocument {
  return {
    tenantId: 1,
    authority: 'zra',
    target,
    tpin: '1000000001',
    type: 'sale',
    salesType: 'normal',
    reference: 'order-1',
    requestHash: 'hash',
    clientInvoiceNo: null,
    customerName: 'Customer',
    customerTpin: null,
    customerAddress: null,
    paymentMethod: '01',
    taxInclusive: true,
    destinationCountryCode: null,
    occurredAt: NOW,
    currency: 'ZMW',
    exchangeRate: 1,
    lpoNumber: null,
    principalId: null,
    net: 318.97,
    vat: 51.03,
    total: 370,
    originalSaleId: null,
    originalReceiptNo: null,
    originalInvoiceNo: null,
    originalSdcId: null,
    reasonCode: null,
    issuedBy: { type: 'tenant_token', id: 1 },
    filingDetails: null,
    lines: [LINE],
  };
}

const NOTIFY_FILERS = { channel: FILING_CHANNEL, origin: 'process-tag' };
const MONTH = '2026-12';

const SALE = {
  id: 10,
  device_id: 1,
  status: 'uploaded',
  result_code: '000',
  last_error: null,
  receipt_no: 1,
  internal_data: 'internal',
  receipt_signature: 'signature',
  sdc_id: 'SDC0001',
  mrc_no: 'MRC0001',
  qr_code_url: 'https://vsdc.example/qr',
  published_at: NOW,
  updated_at: NOW,
} as unknown as SaleRow;
const EVENT = { row: { id: 'evt_1', type: 'invoice.fiscalised', partnerId: 1, tenantId: 1, created: NOW }, body: '{}' };
const LEASE = { owner: 'process-tag', leaseMs: 30_000 };
const FILER: OutcomeOptions = { lease: LEASE, next: { batchSize: 8 } };
const FILER_NOTIFYING: OutcomeOptions = { ...FILER, notify: { channel: OUTCOME_CHANNEL, payload: 'sale:process-tag:{}' } };
const RECONCILIATION: OutcomeOptions = { lease: null };

const BUCKET = { before: 'rl:t:', after: ':v1', windowMs: 60_000 };
const LOOKUP = { hash: 'sha256-of-the-token', now: NOW };

/** Every file of docs/sql/, in order. */
export const SQL_FILES: SqlFile[] = [
  {
    name: 'insert-one-document.sql',
    from: 'insertOneDocument (src/domain/fiscal/sales/document-insert.ts, built by insertOneDocumentSql)',
    what: "A document stored as `pending` in one statement: its branch's device (for a training or proforma document, refused when the device's unit files no such document), the next number of its sequence (its kind's own, or the normal one where the unit numbers every kind from it), the document and its lines, the month's quota; whether the branch is down. A lone document, or one in a caller's transaction.",
    forms: [
      {
        when: 'PostgreSQL, the branch named by X-Branch: the filers are notified at commit',
        statement: insertOneDocumentSql(documentTo({ branchHeader: '001' }), {
          month: MONTH,
          refuseWhenDown: false,
          notify: NOTIFY_FILERS,
        }),
      },
      {
        when: 'the embedded database, the branch named by X-Branch: no notification (the filers are woken in the process)',
        statement: insertOneDocumentSql(documentTo({ branchHeader: '001' }), { month: MONTH, refuseWhenDown: false }),
      },
      {
        when: 'PostgreSQL, no X-Branch: the branch rule in SQL (kernel/devices/branch-rule.ts defaultBranchSql)',
        statement: insertOneDocumentSql(documentTo({ branchHeader: undefined }), {
          month: MONTH,
          refuseWhenDown: false,
          notify: NOTIFY_FILERS,
        }),
      },
      {
        when: "PostgreSQL, a known device (a note on its original's branch)",
        statement: insertOneDocumentSql(documentTo({ deviceId: 1 }), { month: MONTH, refuseWhenDown: false, notify: NOTIFY_FILERS }),
      },
      {
        when: "PostgreSQL, a KRA merchant's training document: only a unit that files training documents takes it (VSCU), numbered from the normal sequence where the unit's kinds share one",
        statement: insertOneDocumentSql(
          { ...documentTo({ branchHeader: '01' }), authority: 'kra', tpin: 'P051234567X', salesType: 'training', currency: 'KES' },
          { month: MONTH, refuseWhenDown: false, notify: NOTIFY_FILERS },
        ),
      },
    ],
  },
  {
    name: 'insert-documents.sql',
    from: 'insertDocuments (src/domain/fiscal/sales/document-insert.ts, built by insertDocumentsSql)',
    what: 'The twin of insert-one-document.sql: the documents stored at the same moment (the sales group commit, DOCUMENT_INSERTS), each as the one-document statement would, in one statement; they travel as one JSON parameter.',
    forms: [
      {
        when: 'both engines (the notification channel is a parameter: null on the embedded database)',
        statement: insertDocumentsSql(
          [
            { doc: documentTo({ branchHeader: '001' }), options: { month: MONTH, refuseWhenDown: false, notify: NOTIFY_FILERS } },
            { doc: documentTo({ deviceId: 1 }), options: { month: MONTH, refuseWhenDown: true, notify: NOTIFY_FILERS } },
          ],
          NOTIFY_FILERS,
        ),
      },
    ],
  },
  {
    name: 'record-one-outcome.sql',
    from: 'recordOneOutcome (src/domain/fiscal/filing/outcome-store.ts, built by recordOneOutcomeSql)',
    what: "A filing's outcome in one statement: the still-pending document moved to it, its webhook event and deliveries, the branch's lease renewed and backoff cleared, and the branch's next documents read (none left: the branch given back).",
    forms: [
      {
        when: 'the filer on PostgreSQL when the request that stored the document may wait in another process: the outcome is notified at commit',
        statement: recordOneOutcomeSql(SALE, EVENT, FILER_NOTIFYING),
      },
      {
        when: 'the filer on the embedded database (and on PostgreSQL when the storing request waits in this process)',
        statement: recordOneOutcomeSql(SALE, EVENT, FILER),
      },
      {
        when: 'reconciliation adopting a filed document: no lease, no next documents',
        statement: recordOneOutcomeSql(SALE, EVENT, RECONCILIATION),
      },
    ],
  },
  {
    name: 'record-many-outcomes.sql',
    from: 'recordManyOutcomes (src/domain/fiscal/filing/outcome-store.ts, built by recordManyOutcomesSql)',
    what: 'The twin of record-one-outcome.sql: the outcomes of different branches recorded at the same moment (the outcomes group commit, FILING_OUTCOMES), in one statement; they travel as one JSON parameter.',
    forms: [
      {
        when: 'PostgreSQL, one of them notified: the deliveries are announced in the statement',
        statement: recordManyOutcomesSql([
          { sale: SALE, event: EVENT, options: FILER_NOTIFYING },
          { sale: { ...SALE, id: 11, device_id: 2 } as SaleRow, event: EVENT, options: FILER },
        ]),
      },
      {
        when: 'the embedded database (none notified)',
        statement: recordManyOutcomesSql([
          { sale: SALE, event: EVENT, options: FILER },
          { sale: { ...SALE, id: 11, device_id: 2 } as SaleRow, event: EVENT, options: FILER },
        ]),
      },
    ],
  },
  {
    name: 'find-one-tenant-token.sql',
    from: 'findOneTenantToken (src/credentials/tenant-token-lookup.ts, built by findOneTenantTokenSql)',
    what: "A tenant token's holder with its account standing, its `last_used_at` stamped at most once a minute.",
    forms: [
      {
        when: 'the memory or Redis rate-limit store (the embedded database): the request is counted outside the statement',
        statement: findOneTenantTokenSql(LOOKUP, undefined),
      },
      {
        when: "PostgreSQL's table rate-limit store: the request counted against the merchant's bucket in the same statement",
        statement: findOneTenantTokenSql(LOOKUP, BUCKET),
      },
    ],
  },
  {
    name: 'find-tenant-tokens.sql',
    from: 'findTenantTokens (src/credentials/tenant-token-lookup.ts, built by findTenantTokensSql)',
    what: "The twin of find-one-tenant-token.sql: the lookups arriving together (TenantTokenLookups) in one statement, each bucket counted once for its requests. Only with PostgreSQL's table rate-limit store.",
    forms: [
      {
        when: "PostgreSQL's table rate-limit store",
        statement: findTenantTokensSql([LOOKUP, { ...LOOKUP, hash: 'sha256-of-another-token' }], BUCKET),
      },
    ],
  },
  {
    name: 'find-fiscalisation-key.sql',
    from: 'findFiscalisationKey (src/credentials/key-lookup.ts, built by findFiscalisationKeySql)',
    what: "A fiscalisation key's holder (every request of a till on /zm/api) with its merchant's account standing, its `last_used_at` stamped at most once a minute.",
    forms: [
      {
        when: 'the memory or Redis rate-limit store (the embedded database): the request is counted outside the statement',
        statement: findFiscalisationKeySql('sha256-of-the-key', NOW, undefined),
      },
      {
        when: "PostgreSQL's table rate-limit store: the request counted against the merchant's till bucket in the same statement",
        statement: findFiscalisationKeySql('sha256-of-the-key', NOW, { ...BUCKET, after: ':zm' }),
      },
    ],
  },
  {
    name: 'branches-ready.sql',
    from: 'branchesReady (src/domain/fiscal/filing/queue.ts, built by branchesReadySql)',
    what: "The fleet's backlog walk of the filers: the branches with a pending document (BRANCHES_WITH_BACKLOG_CTE, src/domain/fiscal/sales/backlog.ts, a loose index scan: one row per branch), kept when nobody else leases them and their backoff has passed.",
    forms: [{ when: 'both engines', statement: branchesReadySql('process-tag', 16) }],
  },
  {
    name: 'oldest-backlog.sql',
    from: 'branchesByOldestBacklog (src/domain/fiscal/sales/backlog.ts, built by oldestBacklogReadSql)',
    what: "The fleet's backlog walk by age (the fiscal gauges, the console's backlog views): the pending documents oldest first, a read at a time, each branch kept where it is first met. A read's size is a literal (100 at least, four times what is wanted, four times more at each following read).",
    forms: [
      { when: 'the first read (the fiscal gauges: every branch)', statement: oldestBacklogReadSql(400, undefined, undefined) },
      {
        when: 'a following read, after the last document read',
        statement: oldestBacklogReadSql(1600, ['2026-12-06 08:00:00+00', 12345], undefined),
      },
      { when: "the console's first read in a partner's scope", statement: oldestBacklogReadSql(100, undefined, partnerLookup('w', 1)) },
    ],
  },
  {
    name: 'claim-branches.sql',
    from: 'claimBranches (src/domain/fiscal/filing/queue.ts, built by claimBranchesSql)',
    what: 'The filing claim: the leases of the ready branches taken (their queue rows made on first use), in the same statement where to file each and its first pending documents.',
    forms: [{ when: 'both engines', statement: claimBranchesSql([1, 2, 3], 'process-tag', 30_000, 8) }],
  },
];

/** A statement's text as the database receives it, but for the blank lines it starts with and the spaces lines end with. */
function textOf(statement: RawBuilder<unknown>): string {
  return statement
    .compile(compiler)
    .sql.split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/^\n+/, '');
}

/** A file's text: where it comes from, then each form's statement. */
export function sqlFileText(file: SqlFile): string {
  const head = [
    `-- ${file.from}`,
    `-- ${file.what}`,
    '-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.',
  ];
  const forms = file.forms.map((form) => `-- Form: ${form.when}\n${textOf(form.statement)};\n`);
  return `${head.join('\n')}\n\n${forms.join('\n')}`;
}
