import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { exportAudit, listAuditPage } from './service.ts';

const TAG = ['Merchant: account'];
const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };

const DESCRIPTION =
  'Who did what to your account, newest first: credentials minted and revoked, users invited and removed, sign-ins, devices, items created and amended, ' +
  'sales credited and debited (the note named), failed documents resolved or reissued, receipts reprinted, days closed (Z), reconciliations started. Each record names who acted (one of your users, ' +
  "tokens or till logins, your partner's key, the operator) and what it acted on. Never another merchant's records. " +
  'Sales issued are not repeated here: the documents list (`GET /api/v1/sales`) is their record, each document naming who issued it (`issuedBy`). ' +
  '`action` is one action (`token.revoked`) or, ending with a dot, a family (`token.`); `from`/`to` are days in your timezone. See docs/audit.md.';

const CsvResponse = {
  200: {
    description: 'The audit trail, streamed',
    content: {
      'text/csv': {
        schema: Type.String({
          description: `UTF-8 CSV with a header row: id, at, atLocal, action, actorType, actorId, actorName, targetType, targetId, targetName, details (JSON)`,
        }),
      },
    },
  },
};

/** The CSV, streamed as it is read (the reply is untyped: the schema describes text, the body is a stream). */
function sendCsv(reply: FastifyReply, stream: Readable, name: string) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .header('cache-control', 'private, no-store')
    .send(stream);
}

export function merchantAuditRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/audit',
      {
        config: READ,
        schema: {
          operationId: 'listAudit',
          tags: TAG,
          summary: 'Your audit trail, newest first',
          description: DESCRIPTION,
          querystring: S.ListAuditQuery,
          response: { 200: Paginated(S.AuditEntry) },
        },
      },
      async (request) => listAuditPage(ctx, requireTenant(request).id, request.query),
    );

    app.get(
      '/api/v1/audit/export',
      {
        config: READ,
        schema: {
          operationId: 'exportAudit',
          tags: TAG,
          summary: 'Your audit trail as CSV',
          description: `The same records and filter as \`GET /api/v1/audit\`, every page, newest first, streamed as CSV. ${DESCRIPTION}`,
          querystring: S.ExportAuditQuery,
          response: CsvResponse,
        },
      },
      async (request, reply) => {
        const { action, from, to } = request.query;
        const stream = await exportAudit(ctx, requireTenant(request).id, request.query);
        const name = ['audit', action?.replace(/\.$/, ''), from, to].filter((p) => p !== undefined && p !== '').join('-');
        return sendCsv(reply, stream, name);
      },
    );
  };
}
