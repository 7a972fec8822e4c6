import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { createPartner, listPartners, setPartnerStatus } from '../provisioning/partners-service.ts';
import * as S from '../provisioning/schemas.ts';
import { data, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { IdParam } from '../../kernel/tenants/schemas.ts';
import { TAG, actor, admin } from './route-parts.ts';

const Partner = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: literals(['active', 'suspended']),
  createdAt: Timestamp(),
});

const CreatePartnerBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    test: Type.Optional(Type.Boolean({ description: 'Mint an sk_test_ key instead of sk_live_' })),
    scopes: Type.Optional(Type.Array(S.ScopeName, { minItems: 1, uniqueItems: true })),
  }),
  { name: 'Acme POS Ltd', test: true },
);

/** The partners: list, create, suspend, resume. */
export function adminPartnerRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/partners',
      {
        config: admin,
        schema: { operationId: 'adminListPartners', tags: TAG, summary: 'Every partner', response: { 200: data(Type.Array(Partner)) } },
      },
      async () => ({ data: await listPartners(ctx.db) }),
    );

    app.post(
      '/partners',
      {
        config: admin,
        schema: {
          operationId: 'adminCreatePartner',
          tags: TAG,
          summary: 'Create a partner and its first secret key',
          body: CreatePartnerBody,
          response: {
            201: data(
              Type.Object({
                partner: Partner,
                key: Type.Object({ id: Type.Integer(), secret: Type.String(), scopes: Type.Array(Type.String()), mode: Type.String() }),
              }),
            ),
          },
        },
      },
      async (request, reply) => {
        const created = await createPartner(ctx.db, ctx.secretBox, actor, request.body);
        return reply.code(201).header('cache-control', 'no-store').send({ data: created });
      },
    );

    for (const [action, status] of [
      ['suspend', 'suspended'],
      ['resume', 'active'],
    ] as const) {
      app.post(
        `/partners/:id/${action}`,
        {
          config: admin,
          schema: {
            operationId: `admin${action === 'suspend' ? 'Suspend' : 'Resume'}Partner`,
            tags: TAG,
            summary: `${action === 'suspend' ? 'Suspend' : 'Resume'} a partner`,
            params: IdParam,
            response: { 200: data(Partner) },
          },
        },
        async (request) => ({ data: await setPartnerStatus(ctx.db, actor, request.params.id, status) }),
      );
    }
  };
}
