import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requirePartner } from '../../kernel/access/auth.ts';
import { ApiError, NotFoundError } from '../../../platform/errors/errors.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { tenantOfPartner } from '../../kernel/tenants/service.ts';
import { backlogPage, documentsPage } from './service.ts';
import { filingsPerMinute } from './filings-store.ts';
import * as S from './schemas.ts';
import type { Scope } from './scope.ts';
import { CONSOLE_CSP, loadConsoleBundle, type ConsoleBundle, type ConsoleFile } from './static.ts';
import { listAdminTenants } from './tenants-store.ts';
import { webhookStats } from './webhook-stats-store.ts';
import { Nullable, data } from '../../../platform/http/schema-helpers.ts';
import { Tenant } from '../../kernel/tenants/schemas.ts';

const TAG = ['Partner: console'];
const ADMIN_TAG = ['Operator'];
const tenantsRead = { auth: { surface: 'partner', scope: 'tenants:read' } } as const;
const webhooksRead = { auth: { surface: 'partner', scope: 'webhooks:read' } } as const;
const admin = { auth: { surface: 'admin' } } as const;

const AdminTenant = Type.Object({
  ...Tenant.properties,
  partnerId: Nullable(Type.Integer()),
  partnerName: Nullable(Type.String()),
  origin: Type.Union([Type.Literal('partner'), Type.Literal('self')], { description: '`partner`: provisioned by a partner; `self`: signed up by the merchant (no partner)' }),
  documentsThisMonth: Type.Integer(),
  pending: Type.Integer(),
  failed: Type.Integer(),
});

const BACKLOG_DESCRIPTION = 'Every branch (device) with its pending documents, the oldest one\'s age, refused documents and VSDC health; the longest-waiting backlog first.';
const DOCUMENTS_DESCRIPTION =
  'Failed documents carry the authority\'s `resultCode` and `lastError`: they need someone to act until they are reissued or marked resolved. ' +
  'A resolved one stays `failed` and has a `resolution`; `resolved=true` lists those, `resolved=false` (the default) the others.';
const FILINGS_DESCRIPTION = 'Documents per minute by their status now, over the last hour, 6 hours or 24 hours (default).';

function sendFile(reply: FastifyReply, request: FastifyRequest, file: ConsoleFile) {
  reply
    .header('content-type', file.contentType)
    .header('etag', file.etag)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
  if (file.contentType.startsWith('text/html')) reply.header('content-security-policy', CONSOLE_CSP).header('x-frame-options', 'DENY');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.send(file.body);
}

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

    app.get('/api/v1/partner/backlog', {
      config: tenantsRead,
      schema: { operationId: 'listPartnerBacklog', tags: TAG, summary: 'Backlog per branch of your merchants', description: BACKLOG_DESCRIPTION, querystring: S.BacklogQuery, response: { 200: Paginated(S.BranchBacklog) } },
    }, async (request) => {
      const { page, tenant, pendingOnly } = request.query;
      return backlogPage(db, await partnerScope(request, tenant), { page, pendingOnly: pendingOnly ?? false }, ctx.clock.now());
    });

    app.get('/api/v1/partner/documents', {
      config: tenantsRead,
      schema: {
        operationId: 'listPartnerDocuments',
        tags: TAG,
        summary: 'Your merchants\' documents by status (default: failed, not resolved), newest first',
        description: DOCUMENTS_DESCRIPTION,
        querystring: S.DocumentsQuery,
        response: { 200: Paginated(S.DocumentSummary) },
      },
    }, async (request) => {
      const { page, status, resolved, tenant, branch } = request.query;
      return documentsPage(db, await partnerScope(request, tenant), { status, resolved, page, branch });
    });

    app.get('/api/v1/partner/filings', {
      config: tenantsRead,
      schema: { operationId: 'getPartnerFilings', tags: TAG, summary: 'Documents per minute (uploaded, pending, failed)', description: FILINGS_DESCRIPTION, querystring: S.FilingsQuery, response: { 200: data(S.Filings) } },
    }, async (request) => {
      const scope = await partnerScope(request, request.query.tenant);
      return { data: await filingsPerMinute(db, scope, (request.query.window ?? '24h') as S.FilingWindow, ctx.clock.now()) };
    });

    app.get('/api/v1/partner/webhook-stats', {
      config: webhooksRead,
      schema: {
        operationId: 'getPartnerWebhookStats',
        tags: TAG,
        summary: 'Delivery success per webhook endpoint',
        description: 'Deliveries created in the window (24 h by default, or 7 d), by status, and the success rate of those settled.',
        querystring: S.WebhookStatsQuery,
        response: { 200: data(Type.Array(S.EndpointStats)) },
      },
    }, async (request) => ({
      data: await webhookStats(db, requirePartner(request).partner.id, (request.query.window ?? '24h') as S.WebhookStatsWindow, ctx.clock.now()),
    }));

    if (ctx.config.adminToken) {
      app.get('/admin/v1/tenants', {
        config: admin,
        schema: { operationId: 'adminListTenants', tags: ADMIN_TAG, summary: 'Every merchant with its plan, account state, usage and backlog', querystring: S.AdminTenantsQuery, response: { 200: Paginated(AdminTenant) } },
      }, async (request) => {
        const { page, partner, status, subscription } = request.query;
        return listAdminTenants(db, { page, ...(partner ? { partnerId: partner } : {}), ...(status ? { status } : {}), ...(subscription ? { subscription } : {}) }, ctx.clock.now());
      });

      app.get('/admin/v1/backlog', {
        config: admin,
        schema: { operationId: 'adminListBacklog', tags: ADMIN_TAG, summary: 'Backlog per branch, every partner', description: BACKLOG_DESCRIPTION, querystring: Type.Object({ ...S.BacklogQuery.properties, ...S.AdminScopeQuery.properties }), response: { 200: Paginated(S.BranchBacklog) } },
      }, async (request) => {
        const { page, tenant, pendingOnly, partner } = request.query;
        return backlogPage(db, { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}) }, { page, pendingOnly: pendingOnly ?? false }, ctx.clock.now());
      });

      app.get('/admin/v1/documents', {
        config: admin,
        schema: { operationId: 'adminListDocuments', tags: ADMIN_TAG, summary: 'Documents by status (default: failed, not resolved), every partner', description: DOCUMENTS_DESCRIPTION, querystring: Type.Object({ ...S.DocumentsQuery.properties, ...S.AdminScopeQuery.properties }), response: { 200: Paginated(S.DocumentSummary) } },
      }, async (request) => {
        const { page, status, resolved, tenant, branch, partner } = request.query;
        return documentsPage(db, { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}) }, { status, resolved, page, branch });
      });

      app.get('/admin/v1/filings', {
        config: admin,
        schema: { operationId: 'adminGetFilings', tags: ADMIN_TAG, summary: 'Documents per minute, every partner', description: FILINGS_DESCRIPTION, querystring: Type.Object({ ...S.FilingsQuery.properties, ...S.AdminScopeQuery.properties }), response: { 200: data(S.Filings) } },
      }, async (request) => {
        const { window, tenant, partner } = request.query;
        const scope = { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}) };
        return { data: await filingsPerMinute(db, scope, (window ?? '24h') as S.FilingWindow, ctx.clock.now()) };
      });
    }

    // The single-page app. Loaded on first use, so a build made after start-up is picked up.
    let bundle: ConsoleBundle | undefined;
    const current = () => (bundle ??= loadConsoleBundle());
    const notBuilt = () => new ApiError('console_not_built', 'The console has not been built: run `npm run build:console` (npm ci does it).');
    const page = { auth: { surface: 'public' } } as const;

    app.get('/console', { config: { ...page, errors: ['console_not_built'] }, schema: { hide: true } }, async (request, reply) => {
      const built = current();
      if (!built) throw notBuilt();
      return sendFile(reply, request, built.index);
    });
    app.get('/console/*', { config: { ...page, errors: ['console_not_built'] }, schema: { hide: true } }, async (request, reply) => {
      const built = current();
      if (!built) throw notBuilt();
      const path = (request.params as { '*': string })['*'];
      const file = built.files.get(path);
      if (file) return sendFile(reply, request, file);
      // Client-side routes have no extension; a missing asset is a real 404.
      if (path.includes('.')) throw new NotFoundError('Not found.');
      return sendFile(reply, request, built.index);
    });
  };
}
