import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import * as R from './resource-schemas.ts';
import { getSaleWithNotes } from './notes.ts';
import { createSale } from './service.ts';
import { getSale, listSalesPage } from './reads.ts';
import { authorityFieldsWithSchema } from './authority-fields.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import { branchHeaderOf } from '../../kernel/http-access/acts-on.ts';
import { READ, TAG, WRITE, WRITE_DESCRIPTION, created } from './route-parts.ts';
import { writeRequestOf } from './write-request.ts';

export function salesRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/api/v1/sales',
      {
        config: {
          auth: { ...WRITE.auth, branch: 'write' },
          errors: [
            'unknown_classification_code',
            'idempotency_key_reused',
            'levy_not_supported',
            'vsdc_unavailable',
            'catalogue_unavailable',
          ],
        },
        preValidation: authorityFieldsWithSchema('sale', S.CreateSaleBody),
        schema: {
          operationId: 'createSale',
          tags: TAG,
          summary: 'Fiscalise a sale',
          description: WRITE_DESCRIPTION,
          headers: S.WriteHeaders,
          body: S.CreateSaleBody,
          response: { 201: data(R.Sale) },
        },
      },
      async (request, reply) => created(reply, await createSale(ctx, writeRequestOf(request), request.body)),
    );

    app.get(
      '/api/v1/sales',
      {
        config: { auth: { ...READ.auth, branch: 'read' } },
        schema: {
          operationId: 'listSales',
          tags: TAG,
          summary: 'List sales, newest first',
          description:
            "All branches, or the one `branch` (or X-Branch) names. `reference` matches your clientInvoiceNo or the Idempotency-Key; `status`, `resolved` (the refused documents dealt with, or not), `type`, and `from`/`to` (the merchant's calendar days, inclusive, in its timezone) narrow further. Filters combine; no match is an empty page.",
          headers: BranchHeaders,
          querystring: S.ListSalesQuery,
          response: { 200: Paginated(R.Sale) },
        },
      },
      async (request) => listSalesPage(ctx, requireTenant(request).id, branchHeaderOf(request), request.query),
    );

    app.get(
      '/api/v1/sales/:sale',
      {
        config: READ,
        schema: {
          operationId: 'getSale',
          tags: TAG,
          summary: 'One sale or note: did it reach the authority?',
          description:
            "The document as lists and webhooks carry it. With `expand=credits`, a sale also gives each line's `creditedQuantity` and `remainingQuantity` (what a credit note may still take back) and `notes`, the credit and debit notes issued against it; " +
            'a note gives `originalSale`, the sale it corrects with its `invoiceNo` and `authorityInvoiceNo`.',
          params: S.SaleParam,
          querystring: S.GetSaleQuery,
          response: { 200: data(R.Sale) },
        },
      },
      async (request) => {
        const tenantId = requireTenant(request).id;
        return {
          data:
            request.query.expand === 'credits'
              ? await getSaleWithNotes(ctx, tenantId, request.params.sale)
              : await getSale(ctx, tenantId, request.params.sale),
        };
      },
    );
  };
}
