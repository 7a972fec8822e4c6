// The legacy till surface: /zm/api (X-Api-Key + X-SdcId) and /api/ApiKey/getactive (a till
// login in the body). Thin: translation lives in invoices.ts, envelopes in dialect.ts.
// Its groups are child plugins of this one, so the dialect envelope registered here answers for every route.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { registerDialectEnvelope } from './dialect.ts';
import { activeKeyRoutes } from './active-key-routes.ts';
import { referenceRoutes } from './reference-routes.ts';
import { invoiceRoutes } from './invoice-routes.ts';

export function compatRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    registerDialectEnvelope(app, ctx);
    await app.register(activeKeyRoutes(ctx));
    await app.register(referenceRoutes(ctx));
    await app.register(invoiceRoutes(ctx));
  };
}
