import { bodyRulesWithSchema } from '../../kernel/http-access/body-rules.ts';
import { checkCounterpartyTaxpayerId } from '../../kernel/devices/authorities.ts';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import * as S from './schemas.ts';
import { getPurchase, listPurchasesPage } from './service.ts';
import { namedBranch, writeBranch } from '../../kernel/http-access/acts-on.ts';
import { capturePurchase } from './capture.ts';
import { READ, TAG, WRITE } from './route-parts.ts';

/** The purchases: list, capture by hand, read one. */
export function purchaseRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/purchases',
      {
        config: { auth: { ...READ.auth, branch: 'read' } },
        schema: {
          operationId: 'listPurchases',
          tags: TAG,
          summary: 'What suppliers sold to you, newest first',
          description:
            'Pulled from the authority by the gateway (hourly by default, PURCHASE_PULL_INTERVAL), or captured by you (POST /api/v1/purchases, `source` manual). All branches, or the one X-Branch names.',
          headers: BranchHeaders,
          querystring: S.ListPurchasesQuery,
          response: { 200: Paginated(S.Purchase) },
        },
      },
      async (request) => listPurchasesPage(ctx, requireTenant(request).id, (await namedBranch(ctx, request))?.id, request.query),
    );

    app.post(
      '/api/v1/purchases',
      {
        config: {
          auth: { ...WRITE.auth, branch: 'write' },
          errors: ['purchase_already_captured', 'unknown_classification_code', 'catalogue_unavailable'],
        },
        schema: {
          operationId: 'capturePurchase',
          tags: TAG,
          summary: "Capture a purchase by hand, from a supplier's invoice the authority does not send you",
          description:
            'For a supplier the authority does not know (no TPIN, or not filing with the VSDC): its purchases are never pulled. ' +
            "Stored at the X-Branch (or default) branch as a purchase with `source` manual, `status` accepted at once, and the branch's next purchase number; " +
            'amounts are computed as on a sale (tax-inclusive prices, VAT category A by default). ' +
            'Lines naming one of your registered goods items (`itemCode`) raise your stock (sarTyCd 02); lines without one are filed but move no stock. ' +
            'Filed with the authority (savePurchase, regTyCd M, approved): `filing.state` is `sending` (retried in the background while the VSDC does not answer), then `accepted` or `failed`. ' +
            '422 naming the field (no lines, a zero quantity, a negative price, too many decimals, an `itemCode` that is not one of your registered items, `occurredAt` in the future or more than 180 days ago); ' +
            '422 unknown_classification_code; 409 purchase_already_captured for the same supplier (TPIN, or name without one) and supplierInvoiceNo at the branch. See docs/purchases.md.',
          headers: BranchHeaders,
          body: S.CapturePurchaseBody,
          response: { 201: data(S.Purchase) },
        },
        preValidation: bodyRulesWithSchema(S.CapturePurchaseBody, (errors, body, request) => {
          const supplier = body.supplier;
          if (supplier !== null && typeof supplier === 'object')
            checkCounterpartyTaxpayerId(errors, 'supplier.tpin', requireTenant(request).authority, (supplier as { tpin?: unknown }).tpin);
        }),
      },
      async (request, reply) => {
        const purchase = await capturePurchase(
          ctx,
          requireTenant(request).id,
          await writeBranch(ctx, request),
          request.body,
          merchantActor(request),
        );
        return reply.code(201).send({ data: purchase });
      },
    );

    app.get(
      '/api/v1/purchases/:purchase',
      {
        config: READ,
        schema: {
          operationId: 'getPurchase',
          tags: TAG,
          summary: 'One purchase, with its lines',
          params: S.PurchaseParam,
          response: { 200: data(S.Purchase) },
        },
      },
      async (request) => ({ data: await getPurchase(ctx, requireTenant(request).id, request.params.purchase) }),
    );
  };
}
