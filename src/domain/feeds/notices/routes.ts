import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { TenantParam } from '../../kernel/tenants/schemas.ts';
import * as S from './schemas.ts';
import { listNoticesPage } from './service.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';

const PULLED =
  "Pulled from the authority by the gateway (selectNotices, hourly by default: NOTICE_PULL_INTERVAL) through one of the merchant's initialised devices; each notice is stored once. " +
  "Newest first (by the authority's publication time). Endpoints subscribed to `authority.notice` get each new one as a webhook.";

export function noticeRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/notices',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' } },
        schema: {
          operationId: 'listNotices',
          tags: ['Merchant: account'],
          summary: 'Notices the authority published to you, newest first',
          description: PULLED,
          querystring: S.ListNoticesQuery,
          response: { 200: Paginated(S.Notice) },
        },
      },
      async (request) => listNoticesPage(ctx, requireTenant(request).id, request.query),
    );

    app.get(
      '/api/v1/tenants/:tenant/notices',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' } },
        schema: {
          operationId: 'listTenantNotices',
          tags: ['Partner: provisioning'],
          summary: 'Notices the authority published to one of your merchants, newest first',
          description: PULLED,
          params: TenantParam,
          querystring: S.ListNoticesQuery,
          response: { 200: Paginated(S.Notice) },
        },
      },
      async (request) => {
        const tenant = requireActedTenant(request);
        return listNoticesPage(ctx, tenant.id, request.query);
      },
    );
  };
}
