// Partner endpoints for till logins (an extension of spec 4.4, scope keys:write): what a till
// uses with POST /api/ApiKey/getactive. Registered apart from the compat plugin, so the
// compat envelope never touches partner answers.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { partnerActor } from '../../kernel/http-access/auth.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { IdParam, TenantParam } from '../../kernel/tenants/schemas.ts';
import * as S from './till-login-schemas.ts';
import { createTillLogin, deleteTillLogin, listTillLogins } from './till-logins.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';

const TAG = ['Partner: provisioning'];
const KEYS_WRITE = { auth: { surface: 'partner' as const, scope: 'keys:write' as const } };
const TenantLoginParam = Type.Object({ ...TenantParam.properties, ...IdParam.properties });

export function tillLoginRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/tenants/:tenant/till-logins',
      {
        config: { auth: { ...KEYS_WRITE.auth, tenant: 'read' } },
        schema: {
          operationId: 'listTillLogins',
          tags: TAG,
          summary: 'Till logins for getactive (no passwords)',
          params: TenantParam,
          response: { 200: data(Type.Array(S.TillLogin)) },
        },
      },
      async (request) => ({ data: await listTillLogins(ctx, requireActedTenant(request)) }),
    );

    app.post(
      '/api/v1/tenants/:tenant/till-logins',
      {
        config: { auth: { ...KEYS_WRITE.auth, tenant: 'writable' }, errors: ['device_not_found'] },
        schema: {
          operationId: 'createTillLogin',
          tags: TAG,
          summary: 'Create a till login for getactive',
          description:
            'Bound to one registered branch. Without `password` one is generated and returned once in `password`. `dialect` (default `bare`) is the dialect of the keys the login is given. ' +
            'Usernames are unique per merchant, compared without case (422 otherwise); an unregistered branch is 404 `device_not_found`.',
          params: TenantParam,
          body: S.CreateTillLoginBody,
          response: { 201: data(S.TillLoginCreated) },
        },
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        const created = await createTillLogin(ctx, partnerActor(request), tenant, request.body);
        return reply.code(201).header('cache-control', 'no-store').send({ data: created });
      },
    );

    app.delete(
      '/api/v1/tenants/:tenant/till-logins/:id',
      {
        config: { auth: { ...KEYS_WRITE.auth, tenant: 'read' } },
        schema: {
          operationId: 'deleteTillLogin',
          tags: TAG,
          summary: 'Delete a till login (immediate)',
          description: 'The key the login was last given is revoked with it. A second delete answers `deleted: false`.',
          params: TenantLoginParam,
          response: { 200: S.TillLoginDeleted },
        },
      },
      async (request) => deleteTillLogin(ctx, partnerActor(request), requireActedTenant(request), request.params.id),
    );
  };
}
