import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, partnerActor, requireTenant } from '../../kernel/access/auth.ts';
import { actorOfParty } from '../../kernel/audit/store.ts';
import { SaleParam } from '../sales/schemas.ts';
import { renderReceiptHtml } from './html.ts';
import { loadReceipt, type Receipt } from './receipt.ts';
import { requireActedTenant } from '../../kernel/access/acts-on.ts';

const DESCRIPTION =
  'The fiscal receipt of an uploaded document, 80 mm wide: HTML by default, PDF with `Accept: application/pdf`. ' +
  'A pending or failed document has no fiscal receipt: 409 `receipt_not_available` (only uploaded documents may be printed).';

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
  const name = `receipt-${(receipt.authorityInvoiceNo ?? String(receipt.receiptNo)).replace(/[^A-Za-z0-9-]+/g, '-')}`;
  if (wantsPdf(request.headers.accept)) {
    // pdfkit and its fonts hold ~25 MB: loaded on the first PDF, not by every process at start.
    const { renderReceiptPdf } = await import('./pdf.ts');
    const pdf = await renderReceiptPdf(receipt);
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${name}.pdf"`).send(pdf);
  }
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
    .send(await renderReceiptHtml(receipt));
}

export function receiptRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/api/v1/sales/:sale/receipt', {
      config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['receipt_not_available'] },
      schema: { operationId: 'getSaleReceipt', tags: ['Merchant: sales'], summary: 'Print the fiscal receipt of an uploaded document', description: DESCRIPTION, params: SaleParam, response: ReceiptResponse },
    }, async (request, reply) => sendReceipt(request, reply, await loadReceipt(ctx, requireTenant(request).id, request.params.sale, actorOfParty(merchantActor(request)))));

    app.get('/api/v1/tenants/:tenant/sales/:sale/receipt', {
      config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' }, errors: ['receipt_not_available'] },
      schema: {
        operationId: 'getTenantSaleReceipt',
        tags: ['Partner: console'],
        summary: 'Print the fiscal receipt of one of your merchants\' uploaded documents',
        description: `${DESCRIPTION} Another partner's merchant or document is a 404.`,
        params: Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647 }), ...SaleParam.properties }),
        response: ReceiptResponse,
      },
    }, async (request, reply) => {
      const tenant = requireActedTenant(request);
      return sendReceipt(request, reply, await loadReceipt(ctx, tenant.id, request.params.sale, partnerActor(request)));
    });
  };
}
