// The merchant's own devices, for a signed-in user (surface `account`, the session cookie;
// docs/merchants.md "Devices"): the same rules as the partner's device endpoints, through the
// same service (devices-service.ts), with the user as the actor. Viewers read; admins and owners
// register, initialise, correct and remove. The tenant is always the user's own, so another
// merchant's branch is simply not found.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requireUser } from '../../kernel/access/auth.ts';
import { unauthenticated } from '../../../platform/errors/errors.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import type { Actor } from '../../kernel/audit/store.ts';
import { learnBranchesAtInitialisation } from '../../kernel/devices/register.ts';
import { initializeDevice, registerDevice, removeDevice, updateDevice } from '../../kernel/devices/service.ts';
import { vsdcHandshake } from '../../kernel/devices/handshake.ts';
import { presentDevice } from '../../kernel/devices/present.ts';
import { findTenantRow } from '../../kernel/tenants/store.ts';
import { devicesOf } from '../../kernel/devices/store.ts';
import { assertTenantWritable } from '../../kernel/tenants/service.ts';
import { UpdateDeviceBody, DeviceRemoved, RegisterDeviceBody, Device } from '../../kernel/devices/schemas.ts';

const TAG = ['Merchant: account'];
const viewer = { auth: { surface: 'account', role: 'viewer' } } as const;
const admin = { auth: { surface: 'account', role: 'admin' } } as const;
const BranchParam = Type.Object({ branch: Type.String({ maxLength: 10, examples: ['000'] }) });

export function accountDeviceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    const actorOf = (request: FastifyRequest): Actor => ({ type: 'user', userId: requireUser(request).user.userId });

    /** The user's merchant; for changes, refused as the partner's are while it is not billable (402). */
    async function ownTenant(request: FastifyRequest, forWrite: boolean) {
      const tenant = await findTenantRow(db, requireUser(request).user.tenant.id);
      if (!tenant) throw unauthenticated('The session has ended (signed out, expired or revoked). Sign in again.');
      if (forWrite) await assertTenantWritable(db, tenant, ctx.clock.now());
      return tenant;
    }

    app.get('/api/v1/account/devices', {
      config: viewer,
      schema: { operationId: 'listAccountDevices', tags: TAG, summary: 'Your devices, by branch', response: { 200: data(Type.Array(Device)) } },
    }, async (request) => {
      const tenant = await ownTenant(request, false);
      const devices = await devicesOf(db, [tenant.id]);
      return { data: (devices.get(tenant.id) ?? []).map(presentDevice) };
    });

    app.post('/api/v1/account/devices', {
      config: admin,
      schema: { operationId: 'registerAccountDevice', tags: TAG, summary: 'Register a device (local only)', body: RegisterDeviceBody, response: { 201: data(Device) } },
    }, async (request, reply) => {
      const tenant = await ownTenant(request, true);
      return reply.code(201).send({ data: await registerDevice(db, actorOf(request), tenant, request.body) });
    });

    app.post('/api/v1/account/devices/:branch/initialize', {
      config: admin,
      schema: {
        operationId: 'initializeAccountDevice',
        tags: TAG,
        summary: 'Initialise a device: the handshake with the authority',
        description: 'No request body. Safe to repeat: an initialised device is returned unchanged; 503 when the VSDC is unreachable.',
        params: BranchParam,
        response: { 200: data(Device) },
      },
    }, async (request) => {
      const tenant = await ownTenant(request, true);
      return {
        data: await initializeDevice(db, actorOf(request), tenant, request.params.branch, vsdcHandshake(ctx), {
          afterInitialized: () => learnBranchesAtInitialisation(ctx, tenant.id),
          surface: 'account',
        }),
      };
    });

    app.patch('/api/v1/account/devices/:branch', {
      config: admin,
      schema: {
        operationId: 'updateAccountDevice',
        tags: TAG,
        summary: 'Correct a device that is not initialised (serial, VSDC address)',
        description: 'Only before initialisation: an initialised device answers 409 `device_initialized`. The next initialisation uses the corrected address.',
        params: BranchParam,
        body: UpdateDeviceBody,
        response: { 200: data(Device) },
      },
    }, async (request) => {
      const tenant = await ownTenant(request, true);
      return { data: await updateDevice(db, actorOf(request), tenant, request.params.branch, request.body, 'account') };
    });

    app.delete('/api/v1/account/devices/:branch', {
      config: admin,
      schema: {
        operationId: 'removeAccountDevice',
        tags: TAG,
        summary: 'Remove a device that is not initialised',
        description: 'Only before initialisation (409 `device_initialized` after). Refused (409 `device_in_use`, nothing changed) while a live fiscalisation key or till login is bound to the branch, or a kept record refers to it.',
        params: BranchParam,
        response: { 200: DeviceRemoved },
      },
    }, async (request) => removeDevice(db, actorOf(request), await ownTenant(request, false), request.params.branch, 'account'));
  };
}
