import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import * as S from './schemas.ts';
import { createAdjustment, getMovement, getSettings, listLevelsPage, listMovementsPage, updateSettings } from './service.ts';
import { namedBranch, writeBranch } from '../../kernel/http-access/acts-on.ts';

const TAG = ['Merchant: stock'];
const WRITE = { auth: { surface: 'merchant' as const, ability: 'invoices:write' as const } };
const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };

export function stockRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/stock',
      {
        config: { auth: { ...READ.auth, branch: 'read' } },
        schema: {
          operationId: 'listStockLevels',
          tags: TAG,
          summary: 'Quantity on hand per item and branch',
          description:
            'Goods items (types 1 and 2) the gateway has seen move, by item code then branch. All branches, or the one X-Branch names.',
          headers: BranchHeaders,
          querystring: S.ListLevelsQuery,
          response: { 200: Paginated(S.StockLevel) },
        },
      },
      async (request) => listLevelsPage(ctx, requireTenant(request).id, (await namedBranch(ctx, request))?.id, request.query),
    );

    app.get(
      '/api/v1/stock/movements',
      {
        config: { auth: { ...READ.auth, branch: 'read' } },
        schema: {
          operationId: 'listStockMovements',
          tags: TAG,
          summary: 'Stock movements, newest first, each with its stock chain state',
          description: 'Sales (11), credit notes (03), adjustments and accepted purchases. All branches, or the one X-Branch names.',
          headers: BranchHeaders,
          querystring: S.ListMovementsQuery,
          response: { 200: Paginated(S.StockMovement) },
        },
      },
      async (request) => listMovementsPage(ctx, requireTenant(request).id, (await namedBranch(ctx, request))?.id, request.query),
    );

    app.get(
      '/api/v1/stock/movements/:movement',
      {
        config: READ,
        schema: {
          operationId: 'getStockMovement',
          tags: TAG,
          summary: 'One stock movement',
          params: S.MovementParam,
          response: { 200: data(S.StockMovement) },
        },
      },
      async (request) => ({ data: await getMovement(ctx, requireTenant(request).id, request.params.movement) }),
    );

    app.post(
      '/api/v1/stock/adjustments',
      {
        config: { auth: { ...WRITE.auth, branch: 'write' }, errors: ['stock_tracking_off'] },
        schema: {
          operationId: 'createStockAdjustment',
          tags: TAG,
          summary: 'Record opening stock, stock received, losses or a count',
          description:
            "On the X-Branch (or default) branch. Levels change at once; the movement is sent to the authority (saveStockItems, then saveStockMaster) in the branch's order: `chain.state` says how far. " +
            'An outgoing movement may not leave less than nothing (422); sales may (see docs/stock.md).',
          headers: BranchHeaders,
          body: S.CreateAdjustmentBody,
          response: { 201: data(S.StockMovement) },
        },
      },
      async (request, reply) => {
        const movement = await createAdjustment(ctx, requireTenant(request), await writeBranch(ctx, request), request.body);
        return reply.code(201).send({ data: movement });
      },
    );

    app.get(
      '/api/v1/stock/settings',
      {
        config: READ,
        schema: {
          operationId: 'getStockSettings',
          tags: TAG,
          summary: 'Whether the gateway keeps your stock',
          response: { 200: data(S.StockSettings) },
        },
      },
      async (request) => ({ data: await getSettings(ctx, requireTenant(request).id) }),
    );

    app.patch(
      '/api/v1/stock/settings',
      {
        config: WRITE,
        schema: {
          operationId: 'updateStockSettings',
          tags: TAG,
          summary: 'Turn stock tracking on or off',
          description:
            'Off: documents filed from now on move no stock and send no stock chain; movements already queued are still sent. Your partner can change it too (PATCH /api/v1/tenants/{tenant}).',
          body: S.StockSettingsBody,
          response: { 200: data(S.StockSettings) },
        },
      },
      async (request) => ({ data: await updateSettings(ctx, requireTenant(request).id, request.body.stockTracking) }),
    );
  };
}
