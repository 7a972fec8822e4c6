import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { listPrincipalsPage } from './service.ts';

const PULLED =
  'The principals you sell for as an RVAT agent, as the authority reports them: pulled by the gateway from each of your initialised branches (selectPrincipals, hourly by default: PRINCIPAL_PULL_INTERVAL). ' +
  'Each principal is stored once; a later report of the same id replaces it. By name, then id. An RVAT sale names one of them by its `id`.';

export function principalRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/principals',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' } },
        schema: {
          operationId: 'listPrincipals',
          tags: ['Merchant: account'],
          summary: 'The principals you sell for as an RVAT agent',
          description: PULLED,
          querystring: S.ListPrincipalsQuery,
          response: { 200: Paginated(S.Principal) },
        },
      },
      async (request) => listPrincipalsPage(ctx, requireTenant(request).id, request.query),
    );
  };
}
