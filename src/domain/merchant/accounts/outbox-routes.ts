import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as S from './schemas.ts';

/** Development only: the mails the outbox kept (no SMTP_URL). */
export function outboxRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/dev/outbox',
      {
        // Without the outbox, a 404 whoever asks: the operator token would not make it exist.
        config: {
          auth: {
            surface: 'admin',
            withoutToken: 'open',
            absentBecause: () => (ctx.mailer.usesOutbox ? undefined : 'The outbox exists only in development without SMTP_URL.'),
          },
        },
        schema: {
          operationId: 'devOutbox',
          tags: ['Operator'],
          summary: 'Development only: the last 50 mails not sent (no SMTP_URL)',
          response: { 200: data(Type.Array(S.OutboxMail)) },
        },
      },
      async () => ({ data: ctx.mailer.outboxMails() }),
    );
  };
}
