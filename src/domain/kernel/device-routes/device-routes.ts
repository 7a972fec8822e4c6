// A device's initialise and correct operations, on the partner's surface (a merchant of the
// partner's, `:tenant`) and the merchant's own (a signed-in user's): one factory, the surface's
// path, auth, names and actor as its parameters; the rules are the service's (kernel/devices/service.ts).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import type { RouteAuth } from '../http-access/auth.ts';
import { requireActedTenant } from '../http-access/acts-on.ts';
import type { Actor } from '../audit/store.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { learnBranchesAtInitialisation } from '../devices/register.ts';
import { updateDevice } from '../devices/corrections.ts';
import { initializeDevice } from '../devices/initialisation.ts';
import { authorityHandshake } from '../devices/handshake.ts';
import { Device, UpdateDeviceBody } from '../devices/schemas.ts';
import { TenantBranchParam } from '../tenants/schemas.ts';

/** The merchant's own branch (the account surface: the tenant is the signed-in user's). */
export const BranchParam = Type.Object({ branch: Type.String({ maxLength: 10, examples: ['000'] }) });

export interface DeviceSurface {
  name: 'partner' | 'account';
  /** The device's path, `:branch` last. */
  path: string;
  params: typeof BranchParam | typeof TenantBranchParam;
  /** The write's declaration; it names the merchant acted on (`tenant: 'writable'`). */
  auth: RouteAuth;
  tags: string[];
  operationIds: { initialize: string; update: string };
  actorOf(request: FastifyRequest): Actor;
}

/** `POST {path}/initialize` and `PATCH {path}` on one surface. */
export function deviceRoutes(ctx: AppContext, surface: DeviceSurface): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.post(
      `${surface.path}/initialize`,
      {
        config: { auth: surface.auth, errors: ['device_not_found', 'initialization_failed', 'vsdc_unreachable'] },
        schema: {
          operationId: surface.operationIds.initialize,
          tags: surface.tags,
          summary: 'Initialise a device: the handshake with the authority',
          description: 'No request body. Safe to repeat: an initialised device is returned unchanged; 503 when the VSDC is unreachable.',
          params: surface.params,
          response: { 200: data(Device) },
        },
      },
      async (request) => {
        const tenant = requireActedTenant(request);
        return {
          data: await initializeDevice(db, surface.actorOf(request), tenant, request.params.branch, authorityHandshake(ctx), {
            afterInitialized: () => learnBranchesAtInitialisation(ctx, tenant.id),
            surface: surface.name,
          }),
        };
      },
    );

    app.patch(
      surface.path,
      {
        config: { auth: surface.auth, errors: ['device_not_found', 'device_initialized', 'device_in_use'] },
        schema: {
          operationId: surface.operationIds.update,
          tags: surface.tags,
          summary: 'Correct a device (serial, address, last number before initialisation; API credential, production mark at any time)',
          description:
            '`vsdcBaseUrl`, `deviceSerial` and `lastInvoiceNo` only before initialisation: for an initialised device they are 409 `device_initialized`; the next initialisation uses the corrected address. `apiCredential` (null removes it; sealed, never shown back) and `production` at any time.',
          params: surface.params,
          body: UpdateDeviceBody,
          response: { 200: data(Device) },
        },
      },
      async (request) => {
        const tenant = requireActedTenant(request);
        return {
          data: await updateDevice(db, surface.actorOf(request), tenant, request.params.branch, request.body, surface.name, ctx.secretBox),
        };
      },
    );
  };
}
