import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import { requireTenant } from '../../http/auth.ts';
import { Paginated } from '../../http/pagination.ts';
import * as S from './schemas.ts';
import { createCreditNote, createDebitNote } from './notes.ts';
import { createSale, describeMe, getSale, listSalesPage, type WriteResult } from './service.ts';
import { data } from '../../http/schema-helpers.ts';

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

export function salesRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/api/v1/sales', {
      config: WRITE,
      schema: { operationId: 'createSale', tags: TAG, summary: 'Fiscalise a sale', description: WRITE_DESCRIPTION, headers: S.WriteHeaders, body: S.CreateSaleBody, response: { 201: data(S.Sale) } },
    }, async (request, reply) => {
      const tenant = requireTenant(request);
      const result = await createSale(ctx, { tenant, branchHeader: request.headers['x-branch'], idempotencyHeader: request.headers['idempotency-key'] }, request.body);
      return created(reply, result);
    });

    app.get('/api/v1/sales', {
      config: READ,
      schema: {
        operationId: 'listSales',
        tags: TAG,
        summary: 'List sales, newest first',
        description: 'All branches, or the one X-Branch names. `reference` matches your clientInvoiceNo or the Idempotency-Key; no match is an empty page.',
        headers: S.BranchHeaders,
        querystring: S.ListSalesQuery,
        response: { 200: Paginated(S.Sale) },
      },
    }, async (request) => listSalesPage(ctx, requireTenant(request).id, request.headers['x-branch'], request.query));

    app.get('/api/v1/sales/:sale', {
      config: READ,
      schema: { operationId: 'getSale', tags: TAG, summary: 'One sale or note: did it reach the authority?', params: S.SaleParam, response: { 200: data(S.Sale) } },
    }, async (request) => ({ data: await getSale(ctx, requireTenant(request).id, request.params.sale) }));

    app.post('/api/v1/sales/:sale/credit-note', {
      config: WRITE,
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
      const result = await createCreditNote(ctx, { tenant, branchHeader: request.headers['x-branch'], idempotencyHeader: request.headers['idempotency-key'] }, request.params.sale, request.body);
      return created(reply, result);
    });

    app.post('/api/v1/sales/:sale/debit-note', {
      config: WRITE,
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
      const result = await createDebitNote(ctx, { tenant, branchHeader: request.headers['x-branch'], idempotencyHeader: request.headers['idempotency-key'] }, request.params.sale, request.body);
      return created(reply, result);
    });

    app.get('/api/v1/me', {
      config: READ,
      schema: { operationId: 'getMe', tags: ['Merchant: account'], summary: 'The merchant behind this token, its branches and the current one', headers: S.BranchHeaders, response: { 200: data(S.Me) } },
    }, async (request) => ({ data: await describeMe(ctx, requireTenant(request), request.headers['x-branch']) }));
  };
}
