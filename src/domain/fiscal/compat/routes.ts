// The legacy till surface: /zm/api (X-Api-Key + X-SdcId) and /api/ApiKey/getactive (a till
// login in the body). Thin: translation lives in invoices.ts, envelopes in dialect.ts.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { rateLimitTenant } from '../../kernel/http-access/rate-limits.ts';
import { fieldError, unauthenticated, ValidationError } from '../../../platform/errors/errors.ts';
import { jsonBodyText } from '../../../platform/http/json-body.ts';
import { validatorCompiler } from '../../../platform/http/validation.ts';
import { answerInDialect, registerDialectEnvelope } from './dialect.ts';
import { fileLegacyInvoice, invoiceByClientNumber, invoiceByInvoiceNumber, type RetrievedInvoice, type TillBranch } from './invoices.ts';
import * as S from './schemas.ts';
import { branchesOfKey } from './store.ts';
import { getActiveKey } from './till-logins.ts';
import type { LegacyInvoice } from './schemas.ts';
import { toLegacyBranch, withOriginalInvoice } from './translate.ts';

const TAG = ['Legacy tills (/zm/api)'];
const WITH_BRANCH = { auth: { surface: 'compat' as const } };

const ENVELOPE =
  'Bare by default (the payload below). For a key minted with `dialect: "wrapped"` every answer is wrapped with the same HTTP status: ' +
  'success `{"success": true, "message": "OK", "data": <payload>}`, failure `{"success": false, "httpCode": <status>, …every field of the bare error}`.';

function described(text: string): string {
  return `${text}\n\n${ENVELOPE}`;
}

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

export function compatRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    registerDialectEnvelope(app, ctx);

    app.post(
      '/api/ApiKey/getactive',
      {
        config: { auth: { surface: 'till_login' }, errors: ['branch_not_initialized'] },
        schema: {
          operationId: 'legacyGetActiveKey',
          tags: TAG,
          summary: 'A till logs in: a new fiscalisation key for its branch, and the branch',
          description: described(
            'No header credential: the till login (provisioned by the partner under /api/v1/tenants/{tenant}/till-logins) is in the body. ' +
              'Each call issues a new branch key, shown only in this answer, and revokes the key the login was given before. ' +
              'A wrong login is 401 (always bare); a blocked subscription or exhausted quota 402; rate-limited like /zm/api.',
          ),
          body: S.GetActiveBody,
          response: { 200: S.GetActiveAnswer },
        },
      },
      async (request, reply) => {
        const answer = await getActiveKey(ctx, request.body, {
          countAttempt: (tenant) => rateLimitTenant(ctx, request, tenant, 'zm'),
          identified: (dialect) => answerInDialect(request, dialect),
        });
        return reply.header('cache-control', 'no-store').send(answer);
      },
    );

    app.get(
      '/zm/api/Branches',
      {
        config: { auth: { surface: 'compat', branch: 'none' } },
        schema: {
          operationId: 'legacyListBranches',
          tags: TAG,
          summary: 'The branches this key may file through',
          description: described(
            'Needs only X-Api-Key. A branch key lists its own branch; a tenant key every branch of the merchant (one with `Initialized: false` cannot file yet).',
          ),
          response: { 200: Type.Array(S.LegacyBranch) },
        },
      },
      async (request) => {
        const principal = request.principal;
        if (principal?.kind !== 'fiscalisation_key') throw unauthenticated('Send X-Api-Key: <pk_…>.');
        const branches = await branchesOfKey(ctx.db, { tenantId: principal.tenant.id, deviceId: principal.key.deviceId });
        return branches.map(toLegacyBranch);
      },
    );

    app.get(
      '/zm/api/TaxCodes',
      {
        config: WITH_BRANCH,
        schema: {
          operationId: 'legacyListTaxCodes',
          tags: TAG,
          summary: 'VAT categories and their rates',
          description: described(
            "Every VAT category the gateway knows; `Code` is what `Items[].VATCategoryCode` takes (or `invoiceItems[].TaxCodes`, in the product's names).",
          ),
          headers: S.CompatHeaders,
          response: { 200: Type.Array(S.LegacyTaxCode) },
        },
      },
      async () => S.ZAMBIA.taxCategories.map((c) => ({ Code: c.code, Name: c.name, Rate: c.rate })),
    );

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
