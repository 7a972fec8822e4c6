import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../kernel/context.ts';
import { adminPartnerRoutes } from './partner-routes.ts';
import { adminTenantRoutes } from './tenant-account-routes.ts';
import { adminAuditRoutes } from './audit-routes.ts';

/** The operator API, enabled only when ADMIN_TOKEN is set: its groups, in the order the OpenAPI document lists them. */
export function adminRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    await app.register(adminPartnerRoutes(ctx));
    await app.register(adminTenantRoutes(ctx));
    await app.register(adminAuditRoutes(ctx));
  };
}
