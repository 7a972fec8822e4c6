import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import * as S from './schemas.ts';
import * as R from './resource-schemas.ts';
import { createCreditNote, createDebitNote } from './notes.ts';
import { authorityFieldsWithSchema } from './authority-fields.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { TAG, WRITE, WRITE_DESCRIPTION, created } from './route-parts.ts';
import { writeRequestOf } from './write-request.ts';

/** Credit and debit notes against a fiscalised sale. */
export function noteRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/api/v1/sales/:sale/credit-note',
      {
        config: {
          ...WRITE,
          errors: [
            'sale_not_fiscalised',
            'idempotency_key_reused',
            'not_a_sale',
            'nothing_left_to_credit',
            'credit_note_rule',
            'vsdc_unavailable',
          ],
        },
        preValidation: authorityFieldsWithSchema('credit_note', S.CreditNoteBody),
        schema: {
          operationId: 'createCreditNote',
          tags: TAG,
          summary: 'Refund or cancel a fiscalised sale (credit note)',
          description: `Without items, credits everything still uncredited (a cancellation); with items, the named lines. ${WRITE_DESCRIPTION}`,
          headers: S.WriteHeaders,
          params: S.SaleParam,
          body: S.CreditNoteBody,
          response: { 201: data(R.Sale) },
        },
      },
      async (request, reply) => created(reply, await createCreditNote(ctx, writeRequestOf(request), request.params.sale, request.body)),
    );

    app.post(
      '/api/v1/sales/:sale/debit-note',
      {
        config: {
          ...WRITE,
          errors: [
            'sale_not_fiscalised',
            'unknown_classification_code',
            'idempotency_key_reused',
            'not_a_sale',
            'levy_not_supported',
            'vsdc_unavailable',
            'catalogue_unavailable',
          ],
        },
        preValidation: authorityFieldsWithSchema('debit_note', S.DebitNoteBody),
        schema: {
          operationId: 'createDebitNote',
          tags: TAG,
          summary: 'Charge more against a fiscalised sale (debit note)',
          description: WRITE_DESCRIPTION,
          headers: S.WriteHeaders,
          params: S.SaleParam,
          body: S.DebitNoteBody,
          response: { 201: data(R.Sale) },
        },
      },
      async (request, reply) => created(reply, await createDebitNote(ctx, writeRequestOf(request), request.params.sale, request.body)),
    );
  };
}
