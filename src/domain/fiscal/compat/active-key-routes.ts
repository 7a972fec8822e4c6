import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { rateLimitTenant } from '../../kernel/http-access/rate-limits.ts';
import { answerInDialect } from './dialect.ts';
import * as S from './schemas.ts';
import { getActiveKey } from './till-logins.ts';
import { TAG, described } from './route-parts.ts';

/** A till logs in (/api/ApiKey/getactive): a new key for its branch. Registered inside compatRoutes, under its envelope. */
export function activeKeyRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

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
  };
}
