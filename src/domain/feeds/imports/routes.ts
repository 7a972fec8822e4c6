import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import * as S from './schemas.ts';
import { approveImportItem, getImportItem, listImportItemsPage, rejectImportItem } from './service.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { namedBranch } from '../../kernel/http-access/acts-on.ts';

const TAG = ['Merchant: customs imports'];
const WRITE = { auth: { surface: 'merchant' as const, ability: 'invoices:write' as const } };
const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };

const ANSWER =
  'The `decision` is set at once and never changes (a second answer is 409 `import_item_already_decided`). ' +
  "The answer is then filed with the authority: `filing` is `sending` (retried in the background while the VSDC does not answer), then `accepted` or `failed` (the authority's code and text in `filingDetail`). A failed filing does not reverse the decision.";

export function importRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/import-items',
      {
        config: { auth: { ...READ.auth, branch: 'read' } },
        schema: {
          operationId: 'listImportItems',
          tags: TAG,
          summary: 'Customs declaration lines addressed to your branches, newest first',
          description:
            'Pulled from the authority by the gateway (hourly by default); no endpoint creates them. All branches, or the one X-Branch names.',
          headers: BranchHeaders,
          querystring: S.ListImportItemsQuery,
          response: { 200: Paginated(S.ImportItem) },
        },
      },
      async (request) => listImportItemsPage(ctx, requireTenant(request).id, (await namedBranch(ctx, request))?.id, request.query),
    );

    app.get(
      '/api/v1/import-items/:importItem',
      {
        config: READ,
        schema: {
          operationId: 'getImportItem',
          tags: TAG,
          summary: 'One declaration line',
          params: S.ImportItemParam,
          response: { 200: data(S.ImportItem) },
        },
      },
      async (request) => ({ data: await getImportItem(ctx, requireTenant(request).id, request.params.importItem) }),
    );

    app.post(
      '/api/v1/import-items/:importItem/approve',
      {
        config: { ...WRITE, errors: ['import_item_already_decided'] },
        schema: {
          operationId: 'approveImportItem',
          tags: TAG,
          summary: 'Approve a line: take the goods into stock as one of your items',
          description: `Requires \`itemCode\`. ${ANSWER}`,
          params: S.ImportItemParam,
          body: S.ApproveBody,
          response: { 200: data(S.ImportItem) },
        },
        preValidation: async (request) => {
          request.body ??= {} as S.ApproveBody;
        },
      },
      async (request) => ({ data: await approveImportItem(ctx, requireTenant(request), request.params.importItem, request.body) }),
    );

    app.post(
      '/api/v1/import-items/:importItem/reject',
      {
        config: { ...WRITE, errors: ['import_item_already_decided'] },
        schema: {
          operationId: 'rejectImportItem',
          tags: TAG,
          summary: 'Reject a line',
          description: `No itemCode needed; the body is optional. ${ANSWER}`,
          params: S.ImportItemParam,
          body: S.RejectBody,
          response: { 200: data(S.ImportItem) },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => ({ data: await rejectImportItem(ctx, requireTenant(request).id, request.params.importItem, request.body) }),
    );
  };
}
