import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requirePartner } from '../../kernel/http-access/auth.ts';
import { removeDevice } from '../../kernel/devices/corrections.ts';
import { handOverDevice } from '../../kernel/devices/initialisation.ts';
import { deviceInputProblems, registerDevice } from '../../kernel/devices/service.ts';
import { authorityHandshake } from '../../kernel/devices/handshake.ts';
import { deviceRoutes } from '../../kernel/device-routes/device-routes.ts';
import { findTenantOfPartner } from '../../kernel/tenants/store.ts';
import { bodyRulesWithSchema } from '../../kernel/http-access/body-rules.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { TenantBranchParam, TenantParam } from '../../kernel/tenants/schemas.ts';
import { RegisterDeviceBody, DeviceRemoved, Device, Handover } from '../../kernel/devices/schemas.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';
import { TAG, actorOf } from './route-parts.ts';

const DEVICE_FIELDS =
  "`protocol` is one of the merchant's authority's (ZRA: `vsdc`; KRA: `oscu`, the default, or `vscu`); `branch` in its form (ZRA 3 digits, KRA 2). " +
  'Optional: `initializedElsewhere` (a unit initialised by another system: checked with the authority, then stored initialised, with no initialisation call), ' +
  '`apiCredential` (sent to an API gateway in front of the authority; sealed, never shown back), `production`, and `lastInvoiceNo` (numbering continues after it).';
const HANDOVER =
  'For a registered device not yet initialised here whose unit was initialised elsewhere (another integrator; KRA answers a second initialisation without the key): ' +
  "the unit id (`sdcId`) and key (`unitKey`, KRA's cmcKey) are checked with the authority by a call that changes nothing, then stored (the key sealed) and the device is initialised. " +
  "Refused: 422 `initialization_failed` with the authority's text; unreachable: 503. Either way nothing changes.";

/** A partner's merchant's devices: register, take over, initialise, correct, remove. */
export function tenantDeviceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.post(
      '/api/v1/tenants/:tenant/devices',
      {
        config: {
          auth: { surface: 'partner', scope: 'devices:write', tenant: 'writable' },
          errors: ['branch_exists', 'device_initialized', 'initialization_failed', 'vsdc_unreachable'],
        },
        schema: {
          operationId: 'registerDevice',
          tags: TAG,
          summary: 'Register a device (local only, unless initialised elsewhere)',
          description: DEVICE_FIELDS,
          params: TenantParam,
          body: RegisterDeviceBody,
          response: { 201: data(Device) },
        },
        preValidation: bodyRulesWithSchema(RegisterDeviceBody, async (errors, body, request) => {
          const id = Number((request.params as { tenant: unknown }).tenant);
          const tenant =
            Number.isSafeInteger(id) && id > 0 && id <= 2147483647
              ? await findTenantOfPartner(db, requirePartner(request).partner.id, id)
              : undefined;
          if (tenant) deviceInputProblems(errors, tenant.authority, body);
        }),
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        return reply.code(201).send({ data: await registerDevice(db, actorOf(request), tenant, request.body, authorityHandshake(ctx)) });
      },
    );

    app.post(
      '/api/v1/tenants/:tenant/devices/:branch/handover',
      {
        config: {
          auth: { surface: 'partner', scope: 'devices:write', tenant: 'writable' },
          errors: ['device_not_found', 'device_initialized', 'device_in_use', 'initialization_failed', 'vsdc_unreachable'],
        },
        schema: {
          operationId: 'handOverDevice',
          tags: TAG,
          summary: 'Take over a device initialised elsewhere (its unit id and key)',
          description: HANDOVER,
          params: TenantBranchParam,
          body: Handover,
          response: { 200: data(Device) },
        },
      },
      async (request) => {
        const tenant = requireActedTenant(request);
        return { data: await handOverDevice(db, actorOf(request), tenant, request.params.branch, request.body, authorityHandshake(ctx)) };
      },
    );
    await app.register(
      deviceRoutes(ctx, {
        name: 'partner',
        path: '/api/v1/tenants/:tenant/devices/:branch',
        params: TenantBranchParam,
        auth: { surface: 'partner', scope: 'devices:write', tenant: 'writable' },
        tags: TAG,
        operationIds: { initialize: 'initializeDevice', update: 'updateDevice' },
        actorOf,
      }),
    );

    app.delete(
      '/api/v1/tenants/:tenant/devices/:branch',
      {
        config: {
          auth: { surface: 'partner', scope: 'devices:write', tenant: 'read' },
          errors: ['device_not_found', 'device_initialized', 'device_in_use'],
        },
        schema: {
          operationId: 'removeDevice',
          tags: TAG,
          summary: 'Remove a device that is not initialised',
          description:
            'Only before initialisation (409 `device_initialized` after). Refused (409 `device_in_use`, nothing changed) while a live fiscalisation key or till login is bound to the branch, or a kept record refers to it; the branch can then be registered again.',
          params: TenantBranchParam,
          response: { 200: DeviceRemoved },
        },
      },
      async (request) => removeDevice(db, actorOf(request), requireActedTenant(request), request.params.branch),
    );
  };
}
