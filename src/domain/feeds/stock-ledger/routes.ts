import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { initialisedBranch } from '../../kernel/http-access/acts-on.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import * as S from './schemas.ts';
import { stockReconciliation } from './service.ts';

const COMPARED =
  "Each item of one branch (X-Branch, else as for sales; it must be initialised): what the gateway holds beside what the VSDC's ledger of stock movements adds up to (selectStockItems: in less out; the levels saveStockMaster sets cannot be read back), with the difference. " +
  "The gateway reads each branch's ledger in the background (hourly by default: STOCK_PULL_INTERVAL; `pulledAt`); `refresh=true` reads it now. " +
  'An item whose difference only your movements not yet in that ledger explain is `pending` (sent on their own; read again later), not `differs`. See docs/stock.md.';

export function stockLedgerRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/stock/reconciliation',
      {
        config: {
          auth: { surface: 'merchant', ability: 'invoices:read', branch: 'read' },
          errors: ['no_device', 'branch_required', 'branch_not_initialized', 'vsdc_unreachable', 'vsdc_refused'],
        },
        schema: {
          operationId: 'getStockReconciliation',
          tags: ['Merchant: stock'],
          summary: "Your stock beside the VSDC's, per item, with the differences",
          description: COMPARED,
          headers: BranchHeaders,
          querystring: S.ReconciliationQuery,
          response: { 200: S.StockReconciliation },
        },
      },
      async (request) => {
        const device = await initialisedBranch(ctx, request);
        return stockReconciliation(ctx, requireTenant(request).id, device, request.query);
      },
    );
  };
}
