import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as S from './schemas.ts';
import { acceptPurchase, rejectPurchase } from './service.ts';
import { TAG, WRITE } from './route-parts.ts';

const ANSWER =
  'The answer (`status`) is recorded at once and never changes (a second answer is 409 `purchase_already_answered`). ' +
  "It is then filed with the authority (savePurchase): `filing.state` is `sending` (retried in the background while the VSDC does not answer), then `accepted` or `failed` (the authority's code and text). A failed filing does not reverse the answer.";

/** The merchant's answer to a purchase: accept or reject. */
export function purchaseAnswerRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/api/v1/purchases/:purchase/accept',
      {
        config: { ...WRITE, errors: ['purchase_already_answered'] },
        schema: {
          operationId: 'acceptPurchase',
          tags: TAG,
          summary: 'Accept a purchase: the goods are taken into stock',
          description:
            "The body is optional. `lines` maps a line to one of your registered items (`itemCode`); a line left out keeps the supplier's item code. " +
            `Goods lines that are (or name) your registered items raise your stock (sarTyCd 02). ${ANSWER}`,
          params: S.PurchaseParam,
          body: S.AcceptBody,
          response: { 200: data(S.Purchase) },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => ({ data: await acceptPurchase(ctx, requireTenant(request).id, request.params.purchase, request.body) }),
    );

    app.post(
      '/api/v1/purchases/:purchase/reject',
      {
        config: { ...WRITE, errors: ['purchase_already_answered'] },
        schema: {
          operationId: 'rejectPurchase',
          tags: TAG,
          summary: 'Reject a purchase',
          description: `The body is optional. ${ANSWER}`,
          params: S.PurchaseParam,
          body: S.RejectBody,
          response: { 200: data(S.Purchase) },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => ({ data: await rejectPurchase(ctx, requireTenant(request).id, request.params.purchase, request.body) }),
    );
  };
}
