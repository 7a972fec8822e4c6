import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantDevices, readBranch } from '../../kernel/http-access/acts-on.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as R from './resource-schemas.ts';
import { describeMe } from './reads.ts';
import { READ } from './route-parts.ts';

/** `GET /api/v1/me`: the merchant behind the token, its branches and the current one. */
export function meRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/v1/me',
      {
        config: { auth: { ...READ.auth, branch: 'read' } },
        schema: {
          operationId: 'getMe',
          tags: ['Merchant: account'],
          summary: 'The merchant behind this token, its branches and the current one',
          headers: BranchHeaders,
          response: { 200: data(R.Me) },
        },
      },
      async (request) => ({
        data: await describeMe(ctx, requireTenant(request), await merchantDevices(ctx, request), await readBranch(ctx, request)),
      }),
    );
  };
}
