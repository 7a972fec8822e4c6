// What the merchant's views share: status words and tones, the merchant's branches, receipt links.
import { ApiProblem, type Api } from '../api.ts';
import { badge, h } from '../dom.ts';
import type { Sale } from '../types.ts';
import { problemMessage, type ViewContext } from '../view.ts';

export const STATUS_LABELS: Record<Sale['status'], string> = {
  pending: 'Pending (waiting to be filed)',
  uploaded: 'Uploaded (fiscalised)',
  failed: 'Failed (refused by the authority)',
  resolved: 'Resolved (refused, then dealt with)',
};
const TONES = { failed: 'danger', pending: 'warn', uploaded: 'ok', resolved: 'neutral' } as const;
export const TYPE_LABELS: Record<Sale['type'], string> = { sale: 'Sale', credit_note: 'Credit note', debit_note: 'Debit note' };

export const statusBadge = (status: Sale['status']) => badge(status, TONES[status]);

export interface Branch {
  branch: string;
  branchName: string | null;
  initialized: boolean;
}

/** The merchant's branches (its devices), from GET /api/v1/me; none when it cannot be read. */
export async function branchesOf(api: Api): Promise<Branch[]> {
  try {
    const me = await api.get<{ data: { devices: Branch[] } }>('/api/v1/me');
    return me.data.devices;
  } catch {
    return [];
  }
}

export const branchLabel = (b: Branch) => (b.branchName ? `${b.branch} ${b.branchName}` : b.branch);

/**
 * The fiscal receipt of an uploaded document: the HTML page in a new tab (the session cookie goes
 * with a same-site navigation), from which the browser prints it.
 */
export function receiptLink(sale: Pick<Sale, 'id' | 'status' | 'invoiceNo'>, label = 'Print receipt'): HTMLElement {
  if (sale.status !== 'uploaded') return h('small', { class: 'muted' }, 'No receipt: only an uploaded document is a fiscal receipt.');
  return h('a', { href: `/api/v1/sales/${sale.id}/receipt`, target: '_blank', rel: 'noopener', class: 'button-link', 'data-testid': `receipt-${sale.id}` }, label);
}

/** The receipt as a PDF, fetched and opened from a blob. */
export async function openReceiptPdf(ctx: ViewContext, sale: Pick<Sale, 'id' | 'invoiceNo'>, button: HTMLButtonElement): Promise<void> {
  const opened = window.open('', '_blank');
  button.disabled = true;
  try {
    const blob = await ctx.api.blob(`/api/v1/sales/${sale.id}/receipt`, 'application/pdf');
    const url = URL.createObjectURL(blob);
    if (opened) opened.location.href = url;
    else window.location.assign(url);
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    ctx.announce(`Receipt (PDF) of invoice ${sale.invoiceNo} opened in a new tab.`);
  } catch (err) {
    opened?.close();
    ctx.announce(err instanceof ApiProblem ? err.message : problemMessage(err), 'error');
  } finally {
    button.disabled = false;
  }
}

/** Today in the viewer's zone, YYYY-MM-DD. */
export function today(offsetDays = 0): string {
  const d = new Date();
  d.setDate(d.getDate() + offsetDays);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
