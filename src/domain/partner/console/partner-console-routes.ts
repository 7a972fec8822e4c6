import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requirePartner } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { tenantOfPartner } from '../../kernel/tenants/service.ts';
import { backlogPage, documentsPage } from './service.ts';
import { filingsPerMinute } from './filings-store.ts';
import * as S from './schemas.ts';
import type { Scope } from './scope.ts';
import { webhookStats } from './webhook-stats-store.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { BACKLOG_DESCRIPTION, DOCUMENTS_DESCRIPTION, FILINGS_DESCRIPTION } from './descriptions.ts';

const TAG = ['Partner: console'];
const tenantsRead = { auth: { surface: 'partner', scope: 'tenants:read' } } as const;
const webhooksRead = { auth: { surface: 'partner', scope: 'webhooks:read' } } as const;

/** What the partner's console reads: the backlog, the documents, the filings per minute, the webhook deliveries. */
export function consoleRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    /** The partner's scope; a merchant not on its book is a plain 404. */
    async function partnerScope(request: FastifyRequest, tenantId: number | undefined): Promise<Scope> {
      const partnerId = requirePartner(request).partner.id;
      if (tenantId === undefined) return { partnerId };
      await tenantOfPartner(db, partnerId, tenantId);
      return { partnerId, tenantId };
    }

    app.get(
      '/api/v1/partner/backlog',
      {
        config: tenantsRead,
        schema: {
          operationId: 'listPartnerBacklog',
          tags: TAG,
          summary: 'Backlog per branch of your merchants',
          description: BACKLOG_DESCRIPTION,
          querystring: S.BacklogQuery,
          response: { 200: Paginated(S.BranchBacklog) },
        },
      },
      async (request) => {
        const { page, tenant, pendingOnly } = request.query;
        return backlogPage(db, await partnerScope(request, tenant), { page, pendingOnly: pendingOnly ?? false }, ctx.clock.now());
      },
    );

    app.get(
      '/api/v1/partner/documents',
      {
        config: tenantsRead,
        schema: {
          operationId: 'listPartnerDocuments',
          tags: TAG,
          summary: "Your merchants' documents by status (default: failed, not resolved), newest first",
          description: DOCUMENTS_DESCRIPTION,
          querystring: S.DocumentsQuery,
          response: { 200: Paginated(S.DocumentSummary) },
        },
      },
      async (request) => {
        const { page, status, resolved, tenant, branch } = request.query;
        return documentsPage(db, await partnerScope(request, tenant), { status, resolved, page, branch });
      },
    );

    app.get(
      '/api/v1/partner/filings',
      {
        config: tenantsRead,
        schema: {
          operationId: 'getPartnerFilings',
          tags: TAG,
          summary: 'Documents per minute (uploaded, pending, failed)',
          description: FILINGS_DESCRIPTION,
          querystring: S.FilingsQuery,
          response: { 200: data(S.Filings) },
        },
      },
      async (request) => {
        const scope = await partnerScope(request, request.query.tenant);
        return { data: await filingsPerMinute(db, scope, (request.query.window ?? '24h') as S.FilingWindow, ctx.clock.now()) };
      },
    );

    app.get(
      '/api/v1/partner/webhook-stats',
      {
        config: webhooksRead,
        schema: {
          operationId: 'getPartnerWebhookStats',
          tags: TAG,
          summary: 'Delivery success per webhook endpoint',
          description: 'Deliveries created in the window (24 h by default, or 7 d), by status, and the success rate of those settled.',
          querystring: S.WebhookStatsQuery,
          response: { 200: data(Type.Array(S.EndpointStats)) },
        },
      },
      async (request) => ({
        data: await webhookStats(
          db,
          requirePartner(request).partner.id,
          (request.query.window ?? '24h') as S.WebhookStatsWindow,
          ctx.clock.now(),
        ),
      }),
    );
  };
}
