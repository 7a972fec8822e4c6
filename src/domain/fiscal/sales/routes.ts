import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, requirePartner, requireTenant, trainingCredential } from '../../kernel/access/auth.ts';
import { NotFoundError } from '../../../platform/errors/errors.ts';
import { findTenantAccountOfPartner, type TenantAccount } from '../../../credentials/lookup.ts';
import { assertTenantInGoodStanding } from '../../../credentials/standing.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { createCreditNote, createDebitNote, getSaleWithNotes } from './notes.ts';
import { createSale, describeMe, getSale, listSalesPage, type WriteResult } from './service.ts';
import { reissueSale, resolveDocument } from './resolutions.ts';
import { authorityFieldsWithSchema } from './authority-fields.ts';
import type { Party } from '../../kernel/audit/store.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import { branchHeaderOf, merchantDevices, readBranch } from '../../kernel/access/acts-on.ts';

const TAG = ['Merchant: sales'];
const WRITE = { auth: { surface: 'merchant' as const, ability: 'invoices:write' as const } };
const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };

function created(reply: FastifyReply, result: WriteResult) {
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(201).send({ data: result.sale });
}

const WRITE_DESCRIPTION =
  'Answers 201 once the document is durably stored with its invoice number, after waiting up to SALE_WAIT_MS for its filing: ' +
  'status `uploaded` (print it), `failed` (refused by the authority) or `pending` (queued; only an uploaded document is a fiscal receipt). ' +
  'With an Idempotency-Key, a repeat of the same request returns the original document with `Idempotent-Replayed: true`.';

const RESOLUTION_DESCRIPTION =
  'Only a `failed` document (refused by the authority) can be resolved, once: anything else is 409 `document_not_failed`. ' +
  'The failed document keeps its lines, totals, invoice number and `status` (`failed`); it gains `resolution` (kind, by, at, note), ' +
  'the action is audited and `invoice.resolved` fires to endpoints that subscribe to it.';

export function salesRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/api/v1/sales', {
      config: { auth: { ...WRITE.auth, branch: 'write' }, errors: ['unknown_classification_code', 'idempotency_key_reused', 'levy_not_supported', 'vsdc_unavailable', 'catalogue_unavailable'] },
      preValidation: authorityFieldsWithSchema('sale', S.CreateSaleBody),
      schema: { operationId: 'createSale', tags: TAG, summary: 'Fiscalise a sale', description: WRITE_DESCRIPTION, headers: S.WriteHeaders, body: S.CreateSaleBody, response: { 201: data(S.Sale) } },
    }, async (request, reply) => {
      const tenant = requireTenant(request);
      const result = await createSale(ctx, { tenant, issuer: merchantActor(request), branchHeader: branchHeaderOf(request), idempotencyHeader: request.headers['idempotency-key'], training: trainingCredential(request) }, request.body);
      return created(reply, result);
    });

    app.get('/api/v1/sales', {
      config: { auth: { ...READ.auth, branch: 'read' } },
      schema: {
        operationId: 'listSales',
        tags: TAG,
        summary: 'List sales, newest first',
        description:
          'All branches, or the one `branch` (or X-Branch) names. `reference` matches your clientInvoiceNo or the Idempotency-Key; `status`, `resolved` (the refused documents dealt with, or not), `type`, and `from`/`to` (the merchant\'s calendar days, inclusive, in its timezone) narrow further. Filters combine; no match is an empty page.',
        headers: BranchHeaders,
        querystring: S.ListSalesQuery,
        response: { 200: Paginated(S.Sale) },
      },
    }, async (request) => listSalesPage(ctx, requireTenant(request).id, branchHeaderOf(request), request.query));

    app.get('/api/v1/sales/:sale', {
      config: READ,
      schema: {
        operationId: 'getSale',
        tags: TAG,
        summary: 'One sale or note: did it reach the authority?',
        description:
          'The document as lists and webhooks carry it. With `expand=credits`, a sale also gives each line\'s `creditedQuantity` and `remainingQuantity` (what a credit note may still take back) and `notes`, the credit and debit notes issued against it; ' +
          'a note gives `originalSale`, the sale it corrects with its `invoiceNo` and `authorityInvoiceNo`.',
        params: S.SaleParam,
        querystring: S.GetSaleQuery,
        response: { 200: data(S.Sale) },
      },
    }, async (request) => {
      const tenantId = requireTenant(request).id;
      return { data: request.query.expand === 'credits' ? await getSaleWithNotes(ctx, tenantId, request.params.sale) : await getSale(ctx, tenantId, request.params.sale) };
    });

    app.post('/api/v1/sales/:sale/credit-note', {
      config: { ...WRITE, errors: ['sale_not_fiscalised', 'idempotency_key_reused', 'not_a_sale', 'nothing_left_to_credit', 'credit_note_rule', 'vsdc_unavailable'] },
      preValidation: authorityFieldsWithSchema('credit_note', S.CreditNoteBody),
      schema: {
        operationId: 'createCreditNote',
        tags: TAG,
        summary: 'Refund or cancel a fiscalised sale (credit note)',
        description: `Without items, credits everything still uncredited (a cancellation); with items, the named lines. ${WRITE_DESCRIPTION}`,
        headers: S.WriteHeaders,
        params: S.SaleParam,
        body: S.CreditNoteBody,
        response: { 201: data(S.Sale) },
      },
    }, async (request, reply) => {
      const tenant = requireTenant(request);
      const result = await createCreditNote(ctx, { tenant, issuer: merchantActor(request), branchHeader: request.headers['x-branch'], idempotencyHeader: request.headers['idempotency-key'], training: trainingCredential(request) }, request.params.sale, request.body);
      return created(reply, result);
    });

    app.post('/api/v1/sales/:sale/debit-note', {
      config: { ...WRITE, errors: ['sale_not_fiscalised', 'unknown_classification_code', 'idempotency_key_reused', 'not_a_sale', 'levy_not_supported', 'vsdc_unavailable', 'catalogue_unavailable'] },
      preValidation: authorityFieldsWithSchema('debit_note', S.DebitNoteBody),
      schema: {
        operationId: 'createDebitNote',
        tags: TAG,
        summary: 'Charge more against a fiscalised sale (debit note)',
        description: WRITE_DESCRIPTION,
        headers: S.WriteHeaders,
        params: S.SaleParam,
        body: S.DebitNoteBody,
        response: { 201: data(S.Sale) },
      },
    }, async (request, reply) => {
      const tenant = requireTenant(request);
      const result = await createDebitNote(ctx, { tenant, issuer: merchantActor(request), branchHeader: request.headers['x-branch'], idempotencyHeader: request.headers['idempotency-key'], training: trainingCredential(request) }, request.params.sale, request.body);
      return created(reply, result);
    });

    app.post('/api/v1/sales/:sale/reissue', {
      config: { ...WRITE, errors: ['document_not_failed', 'branch_not_initialized', 'unknown_classification_code', 'idempotency_key_reused', 'not_a_sale', 'levy_not_supported', 'vsdc_unavailable', 'catalogue_unavailable'] },
      preValidation: authorityFieldsWithSchema('sale', S.ReissueBody),
      schema: {
        operationId: 'reissueSale',
        tags: TAG,
        summary: 'Reissue a failed sale as a new sale with corrected lines or customer',
        description:
          `The body is a sale's body (plus an optional \`note\`). The new sale takes the next invoice number of the failed sale's branch (X-Branch is not needed) and carries \`replacesSaleId\`; ` +
          `it is stored in one transaction with the failed sale's resolution (\`kind: reissued\`, \`replacedBySaleId\`). A credit or debit note cannot be reissued (422 \`not_a_sale\`): mark it resolved. ` +
          `${RESOLUTION_DESCRIPTION} ${WRITE_DESCRIPTION}`,
        headers: S.WriteHeaders,
        params: S.SaleParam,
        body: S.ReissueBody,
        response: { 201: data(S.Sale) },
      },
    }, async (request, reply) => {
      const tenant = requireTenant(request);
      const result = await reissueSale(ctx, { tenant, issuer: merchantActor(request), branchHeader: request.headers['x-branch'], idempotencyHeader: request.headers['idempotency-key'], training: trainingCredential(request) }, request.params.sale, request.body);
      return created(reply, result);
    });

    app.post('/api/v1/sales/:sale/resolve', {
      config: { ...WRITE, errors: ['document_not_failed'] },
      schema: {
        operationId: 'resolveSale',
        tags: TAG,
        summary: 'Mark a failed document resolved: nothing has to be filed for it',
        description: `For a sale, credit note or debit note the authority refused and that needs no new document; \`note\` says why. ${RESOLUTION_DESCRIPTION}`,
        params: S.SaleParam,
        body: S.ResolveBody,
        response: { 200: data(S.Sale) },
      },
    }, async (request) => {
      const tenant = requireTenant(request);
      return { data: await resolveDocument(ctx, tenant, merchantActor(request), request.params.sale, request.body) };
    });

    // The partner's hand on its merchants' failed documents: the same two actions, audited as the partner key.
    const PARTNER_WRITE = { auth: { surface: 'partner' as const, scope: 'tenants:write' as const } };
    const PARTNER_TAG = ['Partner: merchants\' documents'];
    const partnerResolver = (request: FastifyRequest): Party => {
      const key = requirePartner(request);
      return { type: 'partner_key', id: key.keyId, partnerId: key.partner.id };
    };
    const merchantOfPartner = async (request: FastifyRequest, tenantId: number): Promise<TenantAccount> => {
      const tenant = await findTenantAccountOfPartner(ctx.db, requirePartner(request).partner.id, tenantId, ctx.clock.now());
      if (!tenant) throw new NotFoundError('Tenant not found.');
      return tenant;
    };

    app.post('/api/v1/tenants/:tenant/sales/:sale/reissue', {
      config: { ...PARTNER_WRITE, errors: ['subscription_blocked', 'quota_exhausted', 'tenant_suspended', 'document_not_failed', 'branch_not_initialized', 'unknown_classification_code', 'idempotency_key_reused', 'not_a_sale', 'levy_not_supported', 'vsdc_unavailable', 'catalogue_unavailable'] },
      schema: {
        operationId: 'reissueTenantSale',
        tags: PARTNER_TAG,
        summary: 'Reissue one of your merchants\' failed sales as a new sale with corrected lines or customer',
        description: `As \`POST /api/v1/sales/{sale}/reissue\` with the merchant's token, for a merchant of yours (another partner's is a 404); the resolution names your key. ${RESOLUTION_DESCRIPTION}`,
        headers: S.IdempotencyHeaders,
        params: S.TenantSaleParam,
        body: S.ReissueBody,
        response: { 201: data(S.Sale) },
      },
    }, async (request, reply) => {
      const tenant = await merchantOfPartner(request, request.params.tenant);
      assertTenantInGoodStanding(tenant);
      const result = await reissueSale(ctx, { tenant, issuer: partnerResolver(request), branchHeader: undefined, idempotencyHeader: request.headers['idempotency-key'] }, request.params.sale, request.body);
      return created(reply, result);
    });

    app.post('/api/v1/tenants/:tenant/sales/:sale/resolve', {
      config: { ...PARTNER_WRITE, errors: ['document_not_failed'] },
      schema: {
        operationId: 'resolveTenantSale',
        tags: PARTNER_TAG,
        summary: 'Mark one of your merchants\' failed documents resolved: nothing has to be filed for it',
        description: `As \`POST /api/v1/sales/{sale}/resolve\` with the merchant's token, for a merchant of yours (another partner's is a 404). ${RESOLUTION_DESCRIPTION}`,
        params: S.TenantSaleParam,
        body: S.ResolveBody,
        response: { 200: data(S.Sale) },
      },
    }, async (request) => {
      const tenant = await merchantOfPartner(request, request.params.tenant);
      return { data: await resolveDocument(ctx, tenant, partnerResolver(request), request.params.sale, request.body) };
    });

    app.get('/api/v1/me', {
      config: { auth: { ...READ.auth, branch: 'read' } },
      schema: { operationId: 'getMe', tags: ['Merchant: account'], summary: 'The merchant behind this token, its branches and the current one', headers: BranchHeaders, response: { 200: data(S.Me) } },
    }, async (request) => ({ data: await describeMe(ctx, requireTenant(request), await merchantDevices(ctx, request), await readBranch(ctx, request)) }));
  };
}
