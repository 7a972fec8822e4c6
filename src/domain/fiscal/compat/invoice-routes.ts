import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { fieldError, unauthenticated, ValidationError } from '../../../platform/errors/errors.ts';
import { jsonBodyText } from '../../../platform/http/json-body.ts';
import { validatorCompiler } from '../../../platform/http/validation.ts';
import { fileLegacyInvoice, invoiceByClientNumber, invoiceByInvoiceNumber, type RetrievedInvoice, type TillBranch } from './invoices.ts';
import * as S from './schemas.ts';
import type { LegacyInvoice } from './schemas.ts';
import { withOriginalInvoice } from './translate.ts';
import { TAG, WITH_BRANCH, described } from './route-parts.ts';

/** The merchant and the branch X-SdcId named; the auth hook has already checked both. */
function tillBranch(request: FastifyRequest): TillBranch {
  const principal = request.principal;
  if (principal?.kind !== 'fiscalisation_key' || !principal.device) throw unauthenticated('Send X-Api-Key: <pk_…> and X-SdcId.');
  const { key } = principal;
  const issuer =
    key.tillLoginId === null ? { type: 'fiscalisation_key' as const, id: key.keyId } : { type: 'till_login' as const, id: key.tillLoginId };
  return { tenant: principal.tenant, device: principal.device, issuer, training: key.training };
}

/**
 * `originalFormat` of a read, its name matched without regard to case like the body's
 * (`?originalformat=True` from a .NET till); true or false in any case.
 */
function originalFormatOf(query: unknown): boolean {
  const params = (query ?? {}) as Record<string, unknown>;
  const keys = Object.keys(params).filter((key) => key.toLowerCase() === 'originalformat');
  if (keys.length > 1) {
    const message = `The ${keys.join(' and ')} parameters are one parameter (names are matched without regard to case) and must be sent once.`;
    throw new ValidationError(Object.fromEntries(keys.map((key) => [key, [message]])));
  }
  const key = keys[0];
  if (key === undefined) return false;
  const value = params[key];
  if (typeof value !== 'string' || !/^(true|false)$/i.test(value)) throw fieldError(key, `The ${key} field must be true or false.`);
  return value.toLowerCase() === 'true';
}

function answerInvoice(reply: FastifyReply, query: unknown, read: RetrievedInvoice): FastifyReply | LegacyInvoice {
  if (!originalFormatOf(query)) return read.invoice;
  return reply.type('application/json; charset=utf-8').send(withOriginalInvoice(read.invoice, read.originalBody));
}

/** A till's invoices: file one, read one by its own number, reprint one by the gateway's. Registered inside compatRoutes, under its envelope. */
export function invoiceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/zm/api/Invoice',
      {
        config: {
          ...WITH_BRANCH,
          errors: ['unknown_classification_code', 'levy_not_supported', 'vsdc_unavailable', 'catalogue_unavailable'],
        },
        // The body's names are matched without regard to case (invoice-body.ts reads and checks it),
        // so the route's own validation, which matches names exactly, is off for the body.
        validatorCompiler: (route) => (route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route)),
        schema: {
          operationId: 'legacyCreateInvoice',
          tags: TAG,
          summary: 'Fiscalise a sale (ReceiptTypeCode S) on the branch X-SdcId names',
          description: described(
            'The same sale path as POST /api/v1/sales: 201 once the invoice is stored with its InvoiceNumber, after a short wait for its filing; ' +
              '`Status` `pending` means queued (fiscal fields null). Field names are ours (`ClientInvoiceNumber`, `Items`, …) or those of the product /zm/api imitates ' +
              "(`InvoiceNumber`, `invoiceItems`, …), matched without regard to case; an invoice sent in the product's names is answered with its fiscal names too " +
              "(`vsdcdate`, `internalData`, `signature`, `receiptTotalCounter`, `normalReceiptTypeCounter`, `taxItems`). The till's number is idempotent per branch: " +
              'a repeat, even with a different body, returns the original invoice (`Idempotent-Replayed: true`) and never files twice. Unknown fields are ignored; ' +
              'errors name the fields as the till sent them (`Items.0.UnitPrice`, `invoiceItems.0.TotalAmount`). ' +
              'A body in the shape of POST /api/v1/sales (`items[].price`, `clientInvoiceNo`, … and no legacy field) is a 422 keyed `body` saying this route speaks the legacy dialect.',
          ),
          headers: S.CompatHeaders,
          body: S.TillInvoiceBody,
          response: { 201: S.LegacyInvoice },
        },
      },
      async (request, reply) => {
        const { invoice, replayed } = await fileLegacyInvoice(ctx, tillBranch(request), request.body, jsonBodyText(request));
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(201).send(invoice);
      },
    );

    app.get(
      '/zm/api/Invoice/:clientInvoicenumber',
      {
        config: WITH_BRANCH,
        schema: {
          operationId: 'legacyGetInvoice',
          tags: TAG,
          summary: "An invoice by the till's own number (ClientInvoiceNumber or InvoiceNumber)",
          description: described(
            'Invoices filed through /zm/api on the branch X-SdcId names, in the names they were filed in. `originalFormat=true` adds `OriginalInvoice`, the body exactly as the till sent it. Unknown: 404.',
          ),
          headers: S.CompatHeaders,
          params: S.ClientInvoiceNumberParam,
          querystring: S.InvoiceReadQuery,
          response: { 200: S.LegacyInvoiceWithOriginal },
        },
      },
      async (request, reply) =>
        answerInvoice(reply, request.query, await invoiceByClientNumber(ctx, tillBranch(request), request.params.clientInvoicenumber)),
    );

    app.get(
      '/zm/api/Signature/:invoiceNumber',
      {
        config: WITH_BRANCH,
        schema: {
          operationId: 'legacyGetSignature',
          tags: TAG,
          summary: 'Reprint: the invoice by its gateway InvoiceNumber',
          description: described(
            'The same payload as GET /zm/api/Invoice/{clientInvoicenumber}. `invoiceNumber` is the `InvoiceNumber` of a sale of the branch X-SdcId names. Unknown: 404.',
          ),
          headers: S.CompatHeaders,
          params: S.InvoiceNumberParam,
          querystring: S.InvoiceReadQuery,
          response: { 200: S.LegacyInvoiceWithOriginal },
        },
      },
      async (request, reply) =>
        answerInvoice(reply, request.query, await invoiceByInvoiceNumber(ctx, tillBranch(request), request.params.invoiceNumber)),
    );
  };
}
