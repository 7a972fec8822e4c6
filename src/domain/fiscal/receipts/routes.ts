import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, partnerActor, requireTenant } from '../../kernel/http-access/auth.ts';
import { actorOfParty } from '../../kernel/audit/store.ts';
import { SaleParam } from '../sales/schemas.ts';
import { receiptFileName } from './format.ts';
import { renderReceiptHtml } from './html.ts';
import { loadReceipt, type Receipt } from './receipt.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';

const DESCRIPTION =
  'The fiscal receipt of an uploaded document, 80 mm wide: HTML by default, PDF with `Accept: application/pdf`. ' +
  'Each request is a print: the first is the original, every later one is marked COPY (and audited as `sale.reprinted`). ' +
  '`preview=true` shows it without printing it: nothing is counted, and the page says PREVIEW — NOT A RECEIPT (with whether the next print is the original or a COPY). ' +
  '`Content-Disposition` names the file after the document: `receipt-INV…-12.pdf`, `credit-note-…`, `debit-note-…`, with `-copy` or `-preview`. ' +
  'A pending or failed document has no fiscal receipt: 409 `receipt_not_available` (only uploaded documents may be printed).';

const ReceiptQuery = Type.Object({
  preview: Type.Boolean({
    default: false,
    description:
      'true: a preview, not a print. Counts nothing (the next print is still the original when none was made) and is marked PREVIEW — NOT A RECEIPT, so it cannot be handed over as a receipt. ' +
      'false (default): a print, counted',
  }),
});

const ReceiptResponse = {
  200: {
    description: 'The receipt',
    content: {
      'text/html': { schema: Type.String({ description: 'A self-contained HTML page sized for 80 mm paper' }) },
      'application/pdf': { schema: Type.String({ format: 'binary', description: 'One 80 mm page' }) },
    },
  },
};

/** PDF only when the caller asks for it more than for HTML (Accept q-values); HTML otherwise. */
export function wantsPdf(accept: string | undefined): boolean {
  if (!accept) return false;
  let pdf = 0;
  let html = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) || 0 : 1;
    if (type === 'application/pdf') pdf = Math.max(pdf, q);
    if (type === 'text/html') html = Math.max(html, q);
  }
  return pdf > 0 && pdf >= html;
}

async function sendReceipt(request: FastifyRequest, reply: FastifyReply, receipt: Receipt) {
  reply.header('cache-control', 'private, no-cache').header('vary', 'Accept');
  if (wantsPdf(request.headers.accept)) {
    // pdfkit and its fonts hold ~25 MB: loaded on the first PDF, not by every process at start.
    const { renderReceiptPdf } = await import('./pdf.ts');
    const pdf = await renderReceiptPdf(receipt);
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${receiptFileName(receipt, 'pdf')}"`)
      .send(pdf);
  }
  return reply
    .type('text/html; charset=utf-8')
    .header('content-disposition', `inline; filename="${receiptFileName(receipt, 'html')}"`)
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
    .send(await renderReceiptHtml(receipt));
}

export function receiptRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/sales/:sale/receipt',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['receipt_not_available'] },
        schema: {
          operationId: 'getSaleReceipt',
          tags: ['Merchant: sales'],
          summary: 'Print the fiscal receipt of an uploaded document',
          description: DESCRIPTION,
          params: SaleParam,
          querystring: ReceiptQuery,
          response: ReceiptResponse,
        },
      },
      async (request, reply) => {
        const receipt = await loadReceipt(ctx, requireTenant(request).id, request.params.sale, actorOfParty(merchantActor(request)), {
          preview: request.query.preview,
        });
        return sendReceipt(request, reply, receipt);
      },
    );

    app.get(
      '/api/v1/tenants/:tenant/sales/:sale/receipt',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' }, errors: ['receipt_not_available'] },
        schema: {
          operationId: 'getTenantSaleReceipt',
          tags: ['Partner: console'],
          summary: "Print the fiscal receipt of one of your merchants' uploaded documents",
          description: `${DESCRIPTION} Another partner's merchant or document is a 404.`,
          params: Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647 }), ...SaleParam.properties }),
          querystring: ReceiptQuery,
          response: ReceiptResponse,
        },
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        return sendReceipt(
          request,
          reply,
          await loadReceipt(ctx, tenant.id, request.params.sale, partnerActor(request), { preview: request.query.preview }),
        );
      },
    );
  };
}
