// The receipt of an uploaded document, from the merchant's and the partner's views. A preview
// counts nothing and says PREVIEW — NOT A RECEIPT; a print (HTML or PDF) is counted: the first is
// the original, every later one says COPY (docs/receipts.md#preview-print-and-copy).
import { ApiProblem, type Api } from '../api.ts';
import { h } from '../dom.ts';
import type { Sale } from '../types.ts';
import { problemMessage, type ViewContext } from '../view.ts';

export const PRINT_HINT =
  'Preview shows the receipt without printing it. Print receipt issues it: the first print is the original, every later print says COPY.';

type Printable = Pick<Sale, 'id' | 'status' | 'invoiceNo'>;

/**
 * The receipt's HTML page in a new tab (the merchant's session cookie goes with a same-site
 * navigation), from which the browser prints it; `preview`: the preview, counted nowhere.
 */
export function receiptLink(sale: Printable, options: { preview?: boolean; label?: string } = {}): HTMLElement {
  if (sale.status !== 'uploaded') return h('small', { class: 'muted' }, 'No receipt: only an uploaded document is a fiscal receipt.');
  const preview = options.preview ?? false;
  return h(
    'a',
    {
      href: `/api/v1/sales/${sale.id}/receipt${preview ? '?preview=true' : ''}`,
      target: '_blank',
      rel: 'noopener',
      class: 'button-link',
      'data-testid': `${preview ? 'preview' : 'receipt'}-${sale.id}`,
      title: preview
        ? 'Look at the receipt: not a print, marked PREVIEW — NOT A RECEIPT'
        : 'Print the receipt: the first print is the original, later ones say COPY',
    },
    options.label ?? (preview ? 'Preview' : 'Print receipt'),
  );
}

/** Saves a file under its name: a blob URL opened in a tab would be saved under a UUID. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * The receipt as a PDF from `path` (a merchant's or a partner's receipt route). A print is saved
 * under the gateway's name for it (`receipt-INV…-12.pdf`, `-copy`); a preview opens in a new tab.
 */
export async function receiptPdf(
  ctx: ViewContext,
  api: Api,
  path: string,
  button: HTMLButtonElement,
  what: string,
  preview: boolean,
): Promise<void> {
  const opened = preview ? window.open('', '_blank') : null;
  button.disabled = true;
  try {
    const file = await api.file(`${path}${preview ? '?preview=true' : ''}`, 'application/pdf');
    if (preview) {
      const url = URL.createObjectURL(file.blob);
      if (opened) opened.location.href = url;
      else window.location.assign(url);
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      ctx.announce(`Preview of the receipt of ${what} opened in a new tab.`);
    } else {
      const name = file.name ?? `receipt-${what.replace(/[^A-Za-z0-9-]+/g, '-')}.pdf`;
      save(file.blob, name);
      ctx.announce(`Receipt of ${what} saved as ${name}.`);
    }
  } catch (err) {
    opened?.close();
    ctx.announce(err instanceof ApiProblem ? err.message : problemMessage(err), 'error');
  } finally {
    button.disabled = false;
  }
}
