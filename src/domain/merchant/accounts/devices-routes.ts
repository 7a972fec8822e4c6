// The merchant's own devices, for a signed-in user (surface `account`, the session cookie;
// docs/merchants.md "Devices"): the same rules as the partner's device endpoints, through the
// same services (kernel/devices/), with the user as the actor. Viewers read; admins and owners
// register, initialise, correct and remove. The tenant is always the user's own, so another
// merchant's branch is simply not found.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { principalTenant, requireUser } from '../../kernel/http-access/auth.ts';
import { bodyRulesWithSchema } from '../../kernel/http-access/body-rules.ts';
import { data, Nullable } from '../../../platform/http/schema-helpers.ts';
import type { Actor } from '../../kernel/audit/store.ts';
import { removeDevice } from '../../kernel/devices/corrections.ts';
import { deviceInputProblems, registerDevice } from '../../kernel/devices/service.ts';
import { authorityHandshake } from '../../kernel/devices/handshake.ts';
import { builtinSimulatorUrl } from '../../kernel/devices/builtin-simulator.ts';
import { presentDevice } from '../../kernel/devices/present.ts';
import { devicesOf } from '../../kernel/devices/store.ts';
import { DeviceRemoved, RegisterDeviceBody, Device } from '../../kernel/devices/schemas.ts';
import { BranchParam, deviceRoutes } from '../../kernel/device-routes/device-routes.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';
import { TAG, admin, viewer } from './route-parts.ts';

const AccountDevices = Type.Object({
  data: Type.Array(Device),
  builtinSimulatorUrl: Nullable(
    Type.String({
      description:
        "In development only, while the gateway runs its built-in VSDC simulator: the simulator's address, a `vsdcBaseUrl` to register a device on for trying the gateway. Null in production and without the built-in simulator (BUILTIN_SIMULATOR=0)",
      examples: ['http://127.0.0.1:8089'],
    }),
  ),
});

export function accountDeviceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    const actorOf = (request: FastifyRequest): Actor => ({ type: 'user', userId: requireUser(request).user.userId });

    app.get(
      '/api/v1/account/devices',
      {
        config: { auth: { ...viewer.auth, tenant: 'read' } },
        schema: { operationId: 'listAccountDevices', tags: TAG, summary: 'Your devices, by branch', response: { 200: AccountDevices } },
      },
      async (request) => {
        const tenant = requireActedTenant(request);
        const devices = await devicesOf(db, [tenant.id]);
        return { data: (devices.get(tenant.id) ?? []).map(presentDevice), builtinSimulatorUrl: builtinSimulatorUrl(ctx) };
      },
    );

    app.post(
      '/api/v1/account/devices',
      {
        config: {
          auth: { ...admin.auth, tenant: 'writable' },
          errors: ['branch_exists', 'device_initialized', 'initialization_failed', 'vsdc_unreachable'],
        },
        schema: {
          operationId: 'registerAccountDevice',
          tags: TAG,
          summary: 'Register a device (local only, unless initialised elsewhere)',
          body: RegisterDeviceBody,
          response: { 201: data(Device) },
        },
        preValidation: bodyRulesWithSchema(RegisterDeviceBody, async (errors, body, request) => {
          const tenant = principalTenant(request.principal);
          if (tenant) deviceInputProblems(errors, tenant.authority, body);
        }),
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        return reply.code(201).send({ data: await registerDevice(db, actorOf(request), tenant, request.body, authorityHandshake(ctx)) });
      },
    );

    await app.register(
      deviceRoutes(ctx, {
        name: 'account',
        path: '/api/v1/account/devices/:branch',
        params: BranchParam,
        auth: { ...admin.auth, tenant: 'writable' },
        tags: TAG,
        operationIds: { initialize: 'initializeAccountDevice', update: 'updateAccountDevice' },
        actorOf,
      }),
    );

    app.delete(
      '/api/v1/account/devices/:branch',
      {
        config: { auth: { ...admin.auth, tenant: 'read' }, errors: ['device_not_found', 'device_initialized', 'device_in_use'] },
        schema: {
          operationId: 'removeAccountDevice',
          tags: TAG,
          summary: 'Remove a device that is not initialised',
          description:
            'Only before initialisation (409 `device_initialized` after). Refused (409 `device_in_use`, nothing changed) while a live fiscalisation key or till login is bound to the branch, or a kept record refers to it.',
          params: BranchParam,
          response: { 200: DeviceRemoved },
        },
      },
      async (request) => removeDevice(db, actorOf(request), requireActedTenant(request), request.params.branch, 'account'),
    );
  };
}
