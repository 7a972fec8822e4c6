import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';
import { LINKS_PER_HOUR } from './links.ts';
import { ACCEPTED, PUBLIC, TAG, clientOf as client } from './route-parts.ts';

/** Sign-up and the verification of its email address. */
export function signUpRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/api/v1/account/signup',
      {
        config: PUBLIC,
        schema: {
          operationId: 'signUp',
          tags: TAG,
          summary: 'Sign up a merchant and its owner',
          description:
            'Creates a merchant of its own (no partner) and its owner, and mails a link to verify the email address. The answer is the same whether or not the address already has an account (then a mail says so). `authority` (`zra` by default, or `kra`) is fixed at creation; `tpin` is in its form (ZRA: 10 digits; KRA: an 11-character PIN such as P051234567X), else a 422 naming `tpin` and nothing is stored.',
          body: S.SignUpBody,
          response: { 202: S.Accepted },
        },
      },
      async (request, reply) => {
        await service.signUp(ctx, request.body, client(request));
        return reply.code(202).send({ message: `${ACCEPTED} Open the link in it to verify your email address, then sign in.` });
      },
    );

    app.post(
      '/api/v1/account/verify',
      {
        config: { ...PUBLIC, errors: ['link_invalid'] },
        schema: {
          operationId: 'verifyEmail',
          tags: TAG,
          summary: 'Verify an email address with the mailed link',
          description:
            'A link opened again after its address was confirmed answers 200 with `alreadyVerified: true`. An unknown or expired link of an address not confirmed is 400 `link_invalid`: ask for a new one with `POST /api/v1/account/verify/resend`.',
          body: S.TokenBody,
          response: { 200: S.Verified },
        },
      },
      async (request) => {
        const { alreadyVerified } = await service.verifyEmail(ctx, request.body.token);
        return alreadyVerified
          ? { message: 'Your email address is already confirmed. Sign in.', alreadyVerified }
          : { message: 'Your email address is verified. You can sign in.', alreadyVerified };
      },
    );

    app.post(
      '/api/v1/account/verify/resend',
      {
        config: PUBLIC,
        schema: {
          operationId: 'resendVerification',
          tags: TAG,
          summary: 'Mail a new link to verify an email address (24 hours)',
          description: `The answer is the same whatever the address. Only an account whose address is not confirmed yet gets a mail; the new link voids the earlier ones. At most ${LINKS_PER_HOUR} links of a kind reach an address in an hour: more requests mail nothing.`,
          body: S.ResetRequestBody,
          response: { 202: S.Accepted },
        },
      },
      async (request, reply) => {
        await service.resendVerification(ctx, request.body.email, client(request));
        return reply.code(202).send({
          message: `${ACCEPTED} If the address has an account waiting for confirmation, open the new link in it within 24 hours; if it is confirmed already, sign in.`,
        });
      },
    );
  };
}
