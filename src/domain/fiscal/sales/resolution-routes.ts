// A failed document's two ways out, reissue and resolve, on two surfaces from one factory: the
// merchant's own (its token or session) and the partner's hand on its merchants' documents,
// audited as the partner key.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, requirePartner, requireTenant, type RouteAuth } from '../../kernel/http-access/auth.ts';
import type { ErrorCode } from '../../../platform/errors/codes.ts';
import { NotFoundError } from '../../../platform/errors/errors.ts';
import { findTenantAccountOfPartner, type TenantAccount } from '../../../credentials/lookup.ts';
import { assertTenantInGoodStanding } from '../../../credentials/standing.ts';
import type { Party } from '../../kernel/audit/store.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as S from './schemas.ts';
import * as R from './resource-schemas.ts';
import { reissueSale, resolveDocument } from './resolutions.ts';
import { authorityFieldsWithSchema } from './authority-fields.ts';
import { TAG, WRITE, WRITE_DESCRIPTION, created } from './route-parts.ts';
import { writeRequestOf } from './write-request.ts';

const RESOLUTION_DESCRIPTION =
  'Only a `failed` document (refused by the authority) can be resolved, once: anything else is 409 `document_not_failed`. ' +
  'The failed document keeps its lines, totals, invoice number and `status` (`failed`); it gains `resolution` (kind, by, at, note), ' +
  'the action is audited and `invoice.resolved` fires to endpoints that subscribe to it.';

const REISSUE_ERRORS = [
  'document_not_failed',
  'branch_not_initialized',
  'unknown_classification_code',
  'idempotency_key_reused',
  'not_a_sale',
  'levy_not_supported',
  'vsdc_unavailable',
  'catalogue_unavailable',
] as const satisfies readonly ErrorCode[];

/** What differs between the surfaces: where the document's merchant comes from, who acts, and the operations' names and words. */
interface ResolutionSurface {
  prefix: string;
  params: typeof S.SaleParam | typeof S.TenantSaleParam;
  auth: RouteAuth;
  tags: string[];
  /** The merchant whose document it is (a reissue also checks the merchant may still issue, when the surface's auth does not). */
  tenantOf(request: FastifyRequest, action: 'reissue' | 'resolve'): Promise<TenantAccount>;
  /** The write's request: the merchant's own (its credential, X-Branch, training mode), or on its behalf. */
  writeOf(request: FastifyRequest, tenant: TenantAccount): ReturnType<typeof writeRequestOf>;
  party(request: FastifyRequest): Party;
  reissue: {
    operationId: string;
    summary: string;
    description: string;
    headers: typeof S.WriteHeaders | typeof S.IdempotencyHeaders;
    errors: readonly ErrorCode[];
    checksBody: boolean;
  };
  resolve: { operationId: string; summary: string; description: string };
}

const merchantSurface: ResolutionSurface = {
  prefix: '/api/v1/sales/:sale',
  params: S.SaleParam,
  auth: WRITE.auth,
  tags: TAG,
  tenantOf: async (request) => requireTenant(request),
  writeOf: (request) => writeRequestOf(request),
  party: merchantActor,
  reissue: {
    operationId: 'reissueSale',
    summary: 'Reissue a failed sale as a new sale with corrected lines or customer',
    description:
      `The body is a sale's body (plus an optional \`note\`). The new sale takes the next invoice number of the failed sale's branch (X-Branch is not needed) and carries \`replacesSaleId\`; ` +
      `it is stored in one transaction with the failed sale's resolution (\`kind: reissued\`, \`replacedBySaleId\`). A credit or debit note cannot be reissued (422 \`not_a_sale\`): mark it resolved. ` +
      `${RESOLUTION_DESCRIPTION} ${WRITE_DESCRIPTION}`,
    headers: S.WriteHeaders,
    errors: REISSUE_ERRORS,
    checksBody: true,
  },
  resolve: {
    operationId: 'resolveSale',
    summary: 'Mark a failed document resolved: nothing has to be filed for it',
    description: `For a sale, credit note or debit note the authority refused and that needs no new document; \`note\` says why. ${RESOLUTION_DESCRIPTION}`,
  },
};

function partnerSurface(ctx: AppContext): ResolutionSurface {
  const party = (request: FastifyRequest): Party => {
    const key = requirePartner(request);
    return { type: 'partner_key', id: key.keyId, partnerId: key.partner.id };
  };
  return {
    prefix: '/api/v1/tenants/:tenant/sales/:sale',
    params: S.TenantSaleParam,
    auth: { surface: 'partner', scope: 'tenants:write' },
    tags: ["Partner: merchants' documents"],
    tenantOf: async (request, action) => {
      const tenant = await findTenantAccountOfPartner(
        ctx.db,
        requirePartner(request).partner.id,
        (request.params as { tenant: number }).tenant,
        ctx.clock.now(),
      );
      if (!tenant) throw new NotFoundError('Tenant not found.');
      if (action === 'reissue') assertTenantInGoodStanding(tenant);
      return tenant;
    },
    writeOf: (request, tenant) => writeRequestOf(request, { tenant, issuer: party(request) }),
    party,
    reissue: {
      operationId: 'reissueTenantSale',
      summary: "Reissue one of your merchants' failed sales as a new sale with corrected lines or customer",
      description: `As \`POST /api/v1/sales/{sale}/reissue\` with the merchant's token, for a merchant of yours (another partner's is a 404); the resolution names your key. ${RESOLUTION_DESCRIPTION}`,
      headers: S.IdempotencyHeaders,
      errors: ['subscription_blocked', 'quota_exhausted', 'tenant_suspended', ...REISSUE_ERRORS],
      checksBody: false,
    },
    resolve: {
      operationId: 'resolveTenantSale',
      summary: "Mark one of your merchants' failed documents resolved: nothing has to be filed for it",
      description: `As \`POST /api/v1/sales/{sale}/resolve\` with the merchant's token, for a merchant of yours (another partner's is a 404). ${RESOLUTION_DESCRIPTION}`,
    },
  };
}

/** `POST {prefix}/reissue` and `POST {prefix}/resolve` on one surface. */
function resolutionOperations(ctx: AppContext, surface: ResolutionSurface): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      `${surface.prefix}/reissue`,
      {
        config: { auth: surface.auth, errors: surface.reissue.errors },
        ...(surface.reissue.checksBody ? { preValidation: authorityFieldsWithSchema('sale', S.ReissueBody) } : {}),
        schema: {
          operationId: surface.reissue.operationId,
          tags: surface.tags,
          summary: surface.reissue.summary,
          description: surface.reissue.description,
          headers: surface.reissue.headers,
          params: surface.params,
          body: S.ReissueBody,
          response: { 201: data(R.Sale) },
        },
      },
      async (request, reply) => {
        const tenant = await surface.tenantOf(request, 'reissue');
        return created(reply, await reissueSale(ctx, surface.writeOf(request, tenant), request.params.sale, request.body));
      },
    );

    app.post(
      `${surface.prefix}/resolve`,
      {
        config: { auth: surface.auth, errors: ['document_not_failed'] },
        schema: {
          operationId: surface.resolve.operationId,
          tags: surface.tags,
          summary: surface.resolve.summary,
          description: surface.resolve.description,
          params: surface.params,
          body: S.ResolveBody,
          response: { 200: data(R.Sale) },
        },
      },
      async (request) => {
        const tenant = await surface.tenantOf(request, 'resolve');
        return { data: await resolveDocument(ctx, tenant, surface.party(request), request.params.sale, request.body) };
      },
    );
  };
}

export function resolutionRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    await app.register(resolutionOperations(ctx, merchantSurface));
    await app.register(resolutionOperations(ctx, partnerSurface(ctx)));
  };
}
