// What still needs the merchant: documents waiting for a VSDC, and documents the authority refused.
import { query, type Page } from '../api.ts';
import { dateTime, h, money, table } from '../dom.ts';
import { formatTime } from '../time.ts';
import type { Sale } from '../types.ts';
import { errorBox, heading, type ViewContext } from '../view.ts';
import { branchesOf, branchLabel, STATUS_FILTERS } from './merchant-common.ts';
import { firstStepsEmpty, noInitialisedBranch } from './merchant-first-steps.ts';

const REFRESH_MS = 5_000;

function rowsOf(docs: Sale[], withReason: boolean) {
  return docs.map((doc) =>
    [
      h('a', { href: `#/document?id=${doc.id}` }, `No. ${doc.invoiceNo}`),
      doc.clientInvoiceNo ?? '—',
      doc.branch,
      dateTime(doc.createdAt),
      money(doc.totals.total, doc.totals.currency),
      withReason
        ? h(
            'span',
            { class: 'stack' },
            h('span', { class: 'error-text' }, doc.lastError ?? '—'),
            h('small', null, `Code ${doc.resultCode ?? '—'}`),
          )
        : null,
    ].filter((cell) => cell !== null),
  );
}

export async function merchantBacklogView(ctx: ViewContext) {
  ctx.every(REFRESH_MS, ctx.refresh);
  const head = heading('Backlog & failed', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
  let pending: Page<Sale>;
  let failed: Page<Sale>;
  try {
    [pending, failed] = await Promise.all([
      ctx.api.get<Page<Sale>>(`/api/v1/sales${query({ status: 'pending' })}`),
      ctx.api.get<Page<Sale>>(`/api/v1/sales${query(STATUS_FILTERS.failed.query)}`),
    ]);
  } catch (err) {
    return [head, errorBox(err)];
  }
  const branches = await branchesOf(ctx.api);
  const notReady = branches.filter((b) => !b.initialized);
  return [
    head,
    h(
      'p',
      { class: 'summary' },
      pending.meta.total === 0
        ? 'Nothing is waiting to be filed.'
        : `${pending.meta.total} document${pending.meta.total === 1 ? ' is' : 's are'} waiting to be filed.`,
      ' ',
      failed.meta.total === 0
        ? 'No refused document needs you.'
        : `${failed.meta.total} refused document${failed.meta.total === 1 ? ' needs' : 's need'} you.`,
      h('span', { class: 'muted' }, ` Updated ${formatTime(new Date())}; refreshes every ${REFRESH_MS / 1000} s.`),
    ),
    notReady.length
      ? h(
          'p',
          { class: 'notice notice-warn' },
          `Not initialised: ${notReady.map(branchLabel).join(', ')}. `,
          h('a', { href: '#/devices' }, 'Initialise it in Devices'),
          ' before selling from it.',
        )
      : null,
    pending.meta.total > 0 || failed.meta.total > 0
      ? lists(pending, failed)
      : noInitialisedBranch(ctx)
        ? firstStepsEmpty(ctx, 'Nothing waits here.')
        : h(
            'div',
            { class: 'empty', 'data-testid': 'empty-backlog' },
            h('p', null, h('strong', null, 'Nothing waits here: no document is waiting for its VSDC, and none was refused.')),
            h(
              'p',
              null,
              "A document shows up here while its branch's VSDC does not answer, or when the authority refuses it. All your documents are under ",
              h('a', { href: '#/documents' }, 'Documents'),
              '.',
            ),
          ),
  ];
}

/** The two lists of the backlog: documents waiting for their VSDC, and documents the authority refused. */
function lists(pending: Page<Sale>, failed: Page<Sale>) {
  return [
    h('h2', null, 'Waiting to be filed'),
    h(
      'p',
      { class: 'muted' },
      "Stored with their invoice numbers and filed in order when the branch's VSDC answers. The authority expects them within 24 hours.",
    ),
    table('Waiting to be filed', ['Invoice', 'Your reference', 'Branch', 'Stored', 'Total'], rowsOf(pending.data, false), {
      empty: 'None.',
    }),
    pending.meta.total > pending.data.length
      ? h('p', null, h('a', { href: '#/documents?status=pending' }, `All ${pending.meta.total} pending documents`))
      : null,
    h('h2', null, 'Refused by the authority'),
    h('p', { class: 'muted' }, 'Open one to reissue it with a corrected customer or mark it resolved.'),
    table('Refused by the authority', ['Invoice', 'Your reference', 'Branch', 'Stored', 'Total', 'Reason'], rowsOf(failed.data, true), {
      empty: 'None.',
    }),
    failed.meta.total > failed.data.length
      ? h('p', null, h('a', { href: '#/documents?status=failed' }, `All ${failed.meta.total} refused documents to deal with`))
      : null,
  ];
}
