import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, partnerActor, requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { actorOfParty } from '../../kernel/audit/store.ts';
import * as S from './schemas.ts';
import { createRun, getRunWithResults, listRunsPage } from './service.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';

const MERCHANT_TAG = ['Merchant: reconciliation'];
const PARTNER_TAG = ['Partner: reconciliation'];
const ADMIN_TAG = ['Operator'];

const START =
  "Compares each of the branch's uploaded documents of the range with what its VSDC holds (`selectInvoice`: receipt number, signature, total), " +
  "and re-verifies its pending documents older than RECONCILE_PENDING_AFTER (a pending document the VSDC holds had its reply lost: it becomes `uploaded` with the VSDC's receipt). " +
  'Runs in the background, one document at a time and paced so live filing goes first; follow `progress` with the GET. ' +
  'Each mismatch, and each uploaded document the VSDC does not know, fires `reconciliation.mismatch`.';
const SHOW =
  'The run with its progress and one page of its checked documents: by default those that need a look (`mismatch`, `unknown`, `adopted`).';

const TenantRunParams = Type.Object({ ...S.TenantParam.properties, ...S.RunParam.properties });

export function reconciliationRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    // ---- merchant ----
    app.post(
      '/api/v1/reconciliations',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:write' }, errors: ['reconciliation_in_progress'] },
        schema: {
          operationId: 'createReconciliation',
          tags: MERCHANT_TAG,
          summary: "Reconcile a branch's documents with the authority",
          description: START,
          body: S.CreateReconciliationBody,
          response: { 201: data(S.Reconciliation) },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send({ data: await createRun(ctx, requireTenant(request).id, request.body, 'merchant', actorOfParty(merchantActor(request))) }),
    );

    app.get(
      '/api/v1/reconciliations',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' } },
        schema: {
          operationId: 'listReconciliations',
          tags: MERCHANT_TAG,
          summary: 'Your reconciliations, newest first',
          querystring: S.ListRunsQuery,
          response: { 200: Paginated(S.Reconciliation) },
        },
      },
      async (request) => listRunsPage(ctx, requireTenant(request).id, request.query),
    );

    app.get(
      '/api/v1/reconciliations/:reconciliation',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' } },
        schema: {
          operationId: 'getReconciliation',
          tags: MERCHANT_TAG,
          summary: 'One reconciliation: progress and results',
          description: SHOW,
          params: S.RunParam,
          querystring: S.RunQuery,
          response: { 200: S.ReconciliationWithResults },
        },
      },
      async (request) => getRunWithResults(ctx, requireTenant(request).id, request.params.reconciliation, request.query),
    );

    // ---- partner ----

    app.post(
      '/api/v1/tenants/:tenant/reconciliations',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:write', tenant: 'read' }, errors: ['reconciliation_in_progress'] },
        schema: {
          operationId: 'createTenantReconciliation',
          tags: PARTNER_TAG,
          summary: "Reconcile one of your merchants' branches with the authority",
          description: `${START} Another partner's merchant is a 404.`,
          params: S.TenantParam,
          body: S.CreateReconciliationBody,
          response: { 201: data(S.Reconciliation) },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send({ data: await createRun(ctx, requireActedTenant(request).id, request.body, 'partner', partnerActor(request)) }),
    );

    app.get(
      '/api/v1/tenants/:tenant/reconciliations',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' } },
        schema: {
          operationId: 'listTenantReconciliations',
          tags: PARTNER_TAG,
          summary: "One of your merchants' reconciliations, newest first",
          params: S.TenantParam,
          querystring: S.ListRunsQuery,
          response: { 200: Paginated(S.Reconciliation) },
        },
      },
      async (request) => listRunsPage(ctx, requireActedTenant(request).id, request.query),
    );

    app.get(
      '/api/v1/tenants/:tenant/reconciliations/:reconciliation',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' } },
        schema: {
          operationId: 'getTenantReconciliation',
          tags: PARTNER_TAG,
          summary: "One of your merchants' reconciliations: progress and results",
          description: SHOW,
          params: TenantRunParams,
          querystring: S.RunQuery,
          response: { 200: S.ReconciliationWithResults },
        },
      },
      async (request) => getRunWithResults(ctx, requireActedTenant(request).id, request.params.reconciliation, request.query),
    );

    // ---- operator ----
    if (!ctx.config.adminToken) return;
    const admin = { auth: { surface: 'admin' } } as const;

    app.post(
      '/admin/v1/tenants/:tenant/reconciliations',
      {
        config: { auth: { ...admin.auth, tenant: 'read' }, errors: ['reconciliation_in_progress'] },
        schema: {
          operationId: 'adminCreateReconciliation',
          tags: ADMIN_TAG,
          summary: "Reconcile a merchant's branch with the authority",
          description: START,
          params: S.TenantParam,
          body: S.CreateReconciliationBody,
          response: { 201: data(S.Reconciliation) },
        },
      },
      async (request, reply) =>
        reply.code(201).send({ data: await createRun(ctx, requireActedTenant(request).id, request.body, 'admin', { type: 'admin' }) }),
    );

    app.get(
      '/admin/v1/tenants/:tenant/reconciliations',
      {
        config: { auth: { ...admin.auth, tenant: 'read' } },
        schema: {
          operationId: 'adminListReconciliations',
          tags: ADMIN_TAG,
          summary: "A merchant's reconciliations, newest first",
          params: S.TenantParam,
          querystring: S.ListRunsQuery,
          response: { 200: Paginated(S.Reconciliation) },
        },
      },
      async (request) => listRunsPage(ctx, requireActedTenant(request).id, request.query),
    );

    app.get(
      '/admin/v1/tenants/:tenant/reconciliations/:reconciliation',
      {
        config: { auth: { ...admin.auth, tenant: 'read' } },
        schema: {
          operationId: 'adminGetReconciliation',
          tags: ADMIN_TAG,
          summary: "A merchant's reconciliation: progress and results",
          description: SHOW,
          params: TenantRunParams,
          querystring: S.RunQuery,
          response: { 200: S.ReconciliationWithResults },
        },
      },
      async (request) => getRunWithResults(ctx, requireActedTenant(request).id, request.params.reconciliation, request.query),
    );
  };
}
