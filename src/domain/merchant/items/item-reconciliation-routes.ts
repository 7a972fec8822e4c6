import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import * as S from './schemas.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { initialisedBranch } from '../../kernel/http-access/acts-on.ts';
import { reconcileItems } from './reconciliation.ts';
import { READ, TAG } from './route-parts.ts';

/** The items the authority holds for a branch, beside the gateway's. */
export function itemReconciliationRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/item-reconciliation',
      {
        config: {
          auth: { ...READ.auth, branch: 'read' },
          errors: ['no_device', 'branch_required', 'branch_not_initialized', 'vsdc_unreachable', 'vsdc_refused'],
        },
        schema: {
          operationId: 'reconcileItems',
          tags: TAG,
          summary: "The items the authority holds for a branch, beside the gateway's",
          description:
            "Asks the X-Branch (or default) branch's VSDC, now, for every item registered through it (selectItems) and compares each with the item the gateway registered: " +
            'name, classification, item type, units, VAT category, default price and whether it is in use. Nothing is changed on either side; ' +
            'an item whose amendment is still pending shows as `differs` until the authority accepts it. ' +
            '503 `vsdc_unreachable` when the VSDC does not answer, 502 `vsdc_refused` when it answers with an error. See docs/items.md.',
          headers: BranchHeaders,
          response: { 200: data(S.ItemReconciliation) },
        },
      },
      async (request) => {
        const branch = await initialisedBranch(ctx, request);
        return { data: await reconcileItems(ctx, requireTenant(request).id, branch) };
      },
    );
  };
}
