import { FieldErrors, fieldError } from '../../../platform/errors/errors.ts';
import { bodyRulesWithSchema } from '../../kernel/http-access/body-rules.ts';
import { checkCounterpartyTaxpayerId } from '../../kernel/devices/authorities.ts';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import * as S from './schemas.ts';
import { createCustomer, getCustomer, listCustomersPage } from './service.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { branchHeaderOf } from '../../kernel/http-access/acts-on.ts';

const TAG = ['Merchant: customers'];
const WRITE = { auth: { surface: 'merchant' as const, ability: 'invoices:write' as const } };
const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };

const CREATE_DESCRIPTION =
  "With a `tpin`, the customer is verified with the authority and registered on the branch's customer list (X-Branch, or the default branch; it must be initialised). " +
  'The two facts are shown separately and fail independently: `verification.state` is verified, unknown, pending or failed; `registration.state` is registered, pending or failed. ' +
  '`pending` means the VSDC did not answer; the gateway retries in the background. Without a `tpin` the customer is a local record, never sent to the authority (both states `not_applicable`). ' +
  'A TPIN the merchant already has answers 200 with the existing customer, unchanged; a new customer answers 201.';

export function customerRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/customers',
      {
        config: READ,
        schema: {
          operationId: 'listCustomers',
          tags: TAG,
          summary: 'Find customers, newest first',
          description: '`tpin` matches exactly, `name` any part of the name. No match is an empty page.',
          querystring: S.ListCustomersQuery,
          response: { 200: Paginated(S.Customer) },
        },
      },
      async (request) => {
        const tenant = requireTenant(request);
        const errors = new FieldErrors();
        checkCounterpartyTaxpayerId(errors, 'tpin', tenant.authority, request.query.tpin);
        // Said as the sentence a filter takes (no `or null`).
        if (errors.size > 0) throw fieldError('tpin', (errors.toError().errors.tpin?.[0] ?? '').replace(/, or null\.$/, '.'));
        return listCustomersPage(ctx, tenant.id, request.query);
      },
    );

    app.post(
      '/api/v1/customers',
      {
        config: { auth: { ...WRITE.auth, branch: 'write' } },
        schema: {
          operationId: 'createCustomer',
          tags: TAG,
          summary: 'Add a customer (and register it with the authority when it has a TPIN)',
          description: CREATE_DESCRIPTION,
          headers: BranchHeaders,
          body: S.CreateCustomerBody,
          response: { 200: data(S.Customer), 201: data(S.Customer) },
        },
        preValidation: bodyRulesWithSchema(S.CreateCustomerBody, (errors, body, request) =>
          checkCounterpartyTaxpayerId(errors, 'tpin', requireTenant(request).authority, body.tpin),
        ),
      },
      async (request, reply) => {
        const result = await createCustomer(ctx, requireTenant(request), branchHeaderOf(request), request.body);
        return reply.code(result.created ? 201 : 200).send({ data: result.customer });
      },
    );

    app.get(
      '/api/v1/customers/:customer',
      {
        config: READ,
        schema: {
          operationId: 'getCustomer',
          tags: TAG,
          summary: 'One customer and how far its verification and registration got',
          params: S.CustomerParam,
          response: { 200: data(S.Customer) },
        },
      },
      async (request) => ({ data: await getCustomer(ctx, requireTenant(request).id, request.params.customer) }),
    );
  };
}
