import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requirePartner } from '../../kernel/http-access/auth.ts';
import { listPartnerKeys, mintPartnerKey, readPartnerKeySecret, revokePartnerKey, rotatePartnerKey } from './partner-keys-service.ts';
import * as S from './schemas.ts';
import { data, Timestamp } from '../../../platform/http/schema-helpers.ts';
import { IdParam, Revoked } from '../../kernel/tenants/schemas.ts';

/** The partner's own secret keys. */
export function partnerKeyRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    const KEYS_TAG = ['Partner: keys'];

    app.get(
      '/api/v1/partner/keys',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write' } },
        schema: {
          operationId: 'listPartnerKeys',
          tags: KEYS_TAG,
          summary: 'Your secret keys, masked',
          response: { 200: data(Type.Array(S.PartnerKey)) },
        },
      },
      async (request) => ({ data: await listPartnerKeys(db, requirePartner(request), ctx.clock.now()) }),
    );

    app.post(
      '/api/v1/partner/keys',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege'] },
        schema: {
          operationId: 'createPartnerKey',
          tags: KEYS_TAG,
          summary: 'Mint a least-privilege key',
          body: S.CreatePartnerKeyBody,
          response: { 201: data(S.PartnerKeyCreated) },
        },
      },
      async (request, reply) => {
        const created = await mintPartnerKey(db, ctx.secretBox, requirePartner(request), request.body);
        return reply.code(201).header('cache-control', 'no-store').send({ data: created });
      },
    );

    app.get(
      '/api/v1/partner/keys/:id/secret',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege', 'secret_unreadable'] },
        schema: {
          operationId: 'getPartnerKeySecret',
          tags: KEYS_TAG,
          summary: "Read a key's plaintext back (audited)",
          params: IdParam,
          response: { 200: data(Type.Object({ id: Type.Integer(), secret: Type.String() })) },
        },
      },
      async (request, reply) => {
        const secret = await readPartnerKeySecret(db, ctx.secretBox, requirePartner(request), request.params.id);
        return reply.header('cache-control', 'no-store').send({ data: secret });
      },
    );

    app.post(
      '/api/v1/partner/keys/:id/rotate',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege', 'already_rotated'] },
        schema: {
          operationId: 'rotatePartnerKey',
          tags: KEYS_TAG,
          summary: 'Mint a replacement; the old key keeps working for the grace window',
          params: IdParam,
          response: {
            201: data(
              Type.Object({ ...S.PartnerKeyCreated.properties, previous: Type.Object({ id: Type.Integer(), expiresAt: Timestamp() }) }),
            ),
          },
        },
      },
      async (request, reply) => {
        const rotated = await rotatePartnerKey(
          db,
          ctx.secretBox,
          requirePartner(request),
          request.params.id,
          ctx.config.keyRotationGraceSec,
        );
        return reply.code(201).header('cache-control', 'no-store').send({ data: rotated });
      },
    );

    app.delete(
      '/api/v1/partner/keys/:id',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege'] },
        schema: {
          operationId: 'revokePartnerKey',
          tags: KEYS_TAG,
          summary: 'Revoke one of your keys (immediate)',
          params: IdParam,
          response: { 200: Revoked },
        },
      },
      async (request) => revokePartnerKey(db, requirePartner(request), request.params.id),
    );
  };
}
