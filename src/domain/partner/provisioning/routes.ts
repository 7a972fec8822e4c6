import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requirePartner } from '../../kernel/access/auth.ts';
import { PageQuery, Paginated } from '../../../platform/http/pagination.ts';
import type { Actor } from '../../kernel/audit/store.ts';
import { listApiKeys, listTokens, mintApiKey, mintToken, revokeApiKey, revokeToken } from '../../kernel/tenants/credentials-service.ts';
import { removeDevice, updateDevice } from '../../kernel/devices/corrections.ts';
import { handOverDevice, initializeDevice } from '../../kernel/devices/initialisation.ts';
import { deviceInputProblems, registerDevice } from '../../kernel/devices/service.ts';
import { authorityHandshake } from '../../kernel/devices/handshake.ts';
import { learnBranchesAtInitialisation } from '../../kernel/devices/register.ts';
import { listPartnerKeys, mintPartnerKey, readPartnerKeySecret, revokePartnerKey, rotatePartnerKey } from './partner-keys-service.ts';
import * as S from './schemas.ts';
import { checkTenantInput, createTenant, getTenant, listTenants, updateTenantSettings } from '../../kernel/tenants/service.ts';
import { findTenantOfPartner } from '../../kernel/tenants/store.ts';
import { bodyRulesWithSchema } from '../../kernel/access/body-rules.ts';
import { data, Timestamp } from '../../../platform/http/schema-helpers.ts';
import { CreateApiKeyBody, IdParam, FiscalisationKeyCreated, TenantToken, Tenant, TenantTokenCreated, Revoked, CreateTokenBody, FiscalisationKey, TenantBranchParam, TenantParam } from '../../kernel/tenants/schemas.ts';
import { RegisterDeviceBody, DeviceRemoved, UpdateDeviceBody, Device, Handover } from '../../kernel/devices/schemas.ts';
import { requireActedTenant } from '../../kernel/access/acts-on.ts';

const TAG = ['Partner: provisioning'];
const DEVICE_FIELDS =
  '`protocol` is one of the merchant\'s authority\'s (ZRA: `vsdc`; KRA: `oscu`, the default, or `vscu`); `branch` in its form (ZRA 3 digits, KRA 2). ' +
  'Optional: `initializedElsewhere` (a unit initialised by another system: checked with the authority, then stored initialised, with no initialisation call), ' +
  '`apiCredential` (sent to an API gateway in front of the authority; sealed, never shown back), `production`, and `lastInvoiceNo` (numbering continues after it).';
const HANDOVER =
  'For a registered device not yet initialised here whose unit was initialised elsewhere (another integrator; KRA answers a second initialisation without the key): ' +
  'the unit id (`sdcId`) and key (`unitKey`, KRA\'s cmcKey) are checked with the authority by a call that changes nothing, then stored (the key sealed) and the device is initialised. ' +
  'Refused: 422 `initialization_failed` with the authority\'s text; unreachable: 503. Either way nothing changes.';

function actorOf(request: FastifyRequest): Actor {
  const key = requirePartner(request);
  return { type: 'partner_key', keyId: key.keyId, partnerId: key.partner.id };
}

export function provisioningRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.get('/api/v1/tenants', {
      config: { auth: { surface: 'partner', scope: 'tenants:read' } },
      schema: { operationId: 'listTenants', tags: TAG, summary: 'List your merchants', querystring: PageQuery, response: { 200: Paginated(Tenant) } },
    }, async (request) => listTenants(db, requirePartner(request).partner.id, request.query.page));

    app.post('/api/v1/tenants', {
      config: { auth: { surface: 'partner', scope: 'tenants:write' } },
      schema: { operationId: 'createTenant', tags: TAG, summary: 'Create a merchant', description: '`authority` (`zra` by default, or `kra`) is fixed at creation; `tpin` is in its form (ZRA: a 10-digit TPIN; KRA: an 11-character PIN such as P051234567X).', body: S.CreateTenantBody, response: { 201: data(Tenant) } },
      preValidation: bodyRulesWithSchema(S.CreateTenantBody, (errors, body) => void checkTenantInput(errors, body)),
    }, async (request, reply) => {
      const tenant = await createTenant(db, actorOf(request), requirePartner(request).partner.id, request.body);
      return reply.code(201).send({ data: tenant });
    });

    app.get('/api/v1/tenants/:tenant', {
      config: { auth: { surface: 'partner', scope: 'tenants:read' } },
      schema: { operationId: 'getTenant', tags: TAG, summary: 'One merchant with its devices', params: TenantParam, response: { 200: data(Tenant) } },
    }, async (request) => ({ data: await getTenant(db, requirePartner(request).partner.id, request.params.tenant) }));

    app.patch('/api/v1/tenants/:tenant', {
      config: { auth: { surface: 'partner', scope: 'tenants:write' } },
      schema: {
        operationId: 'updateTenant',
        tags: TAG,
        summary: 'Change a merchant\'s settings',
        description:
          '`offlinePolicy` (`queue` or `refuse`), what a sale gets while its branch\'s VSDC is unreachable (docs/offline.md); `stockTracking`, whether the gateway keeps the merchant\'s stock and sends the authority\'s stock chain (docs/stock.md); `timezone`, the IANA time zone of the merchant\'s days in daily reports and exports (docs/reports.md).',
        params: TenantParam,
        body: S.UpdateTenantBody,
        response: { 200: data(Tenant) },
      },
      preValidation: bodyRulesWithSchema(S.UpdateTenantBody, (errors, body) => {
        if ('authority' in body) errors.add('authority', 'The authority field cannot change after the merchant is created (its documents, numbers and devices are its authority\'s): create another merchant for another authority.');
      }),
    }, async (request) => ({ data: await updateTenantSettings(db, actorOf(request), requirePartner(request).partner.id, request.params.tenant, request.body) }));

    app.post('/api/v1/tenants/:tenant/devices', {
      config: { auth: { surface: 'partner', scope: 'devices:write', tenant: 'writable' }, errors: ['branch_exists', 'device_initialized', 'initialization_failed', 'vsdc_unreachable'] },
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
        const tenant = Number.isSafeInteger(id) && id > 0 && id <= 2147483647 ? await findTenantOfPartner(db, requirePartner(request).partner.id, id) : undefined;
        if (tenant) deviceInputProblems(errors, tenant.authority, body);
      }),
    }, async (request, reply) => {
      const tenant = requireActedTenant(request);
      return reply.code(201).send({ data: await registerDevice(db, actorOf(request), tenant, request.body, authorityHandshake(ctx)) });
    });

    app.post('/api/v1/tenants/:tenant/devices/:branch/handover', {
      config: { auth: { surface: 'partner', scope: 'devices:write', tenant: 'writable' }, errors: ['device_not_found', 'device_initialized', 'device_in_use', 'initialization_failed', 'vsdc_unreachable'] },
      schema: {
        operationId: 'handOverDevice',
        tags: TAG,
        summary: 'Take over a device initialised elsewhere (its unit id and key)',
        description: HANDOVER,
        params: TenantBranchParam,
        body: Handover,
        response: { 200: data(Device) },
      },
    }, async (request) => {
      const tenant = requireActedTenant(request);
      return { data: await handOverDevice(db, actorOf(request), tenant, request.params.branch, request.body, authorityHandshake(ctx)) };
    });

    app.post('/api/v1/tenants/:tenant/devices/:branch/initialize', {
      config: { auth: { surface: 'partner', scope: 'devices:write', tenant: 'writable' }, errors: ['device_not_found', 'initialization_failed', 'vsdc_unreachable'] },
      schema: {
        operationId: 'initializeDevice',
        tags: TAG,
        summary: 'Initialise a device: the handshake with the authority',
        description: 'No request body. Safe to repeat: an initialised device is returned unchanged; 503 when the VSDC is unreachable.',
        params: TenantBranchParam,
        response: { 200: data(Device) },
      },
    }, async (request) => {
      const tenant = requireActedTenant(request);
      return {
        data: await initializeDevice(db, actorOf(request), tenant, request.params.branch, authorityHandshake(ctx), {
          afterInitialized: () => learnBranchesAtInitialisation(ctx, tenant.id),
        }),
      };
    });

    app.patch('/api/v1/tenants/:tenant/devices/:branch', {
      config: { auth: { surface: 'partner', scope: 'devices:write', tenant: 'writable' }, errors: ['device_not_found', 'device_initialized', 'device_in_use'] },
      schema: {
        operationId: 'updateDevice',
        tags: TAG,
        summary: 'Correct a device (serial, address, last number before initialisation; API credential, production mark at any time)',
        description: '`vsdcBaseUrl`, `deviceSerial` and `lastInvoiceNo` only before initialisation: for an initialised device they are 409 `device_initialized`; the next initialisation uses the corrected address. `apiCredential` (null removes it; sealed, never shown back) and `production` at any time.',
        params: TenantBranchParam,
        body: UpdateDeviceBody,
        response: { 200: data(Device) },
      },
    }, async (request) => {
      const tenant = requireActedTenant(request);
      return { data: await updateDevice(db, actorOf(request), tenant, request.params.branch, request.body, 'partner', ctx.secretBox) };
    });

    app.delete('/api/v1/tenants/:tenant/devices/:branch', {
      config: { auth: { surface: 'partner', scope: 'devices:write', tenant: 'read' }, errors: ['device_not_found', 'device_initialized', 'device_in_use'] },
      schema: {
        operationId: 'removeDevice',
        tags: TAG,
        summary: 'Remove a device that is not initialised',
        description:
          'Only before initialisation (409 `device_initialized` after). Refused (409 `device_in_use`, nothing changed) while a live fiscalisation key or till login is bound to the branch, or a kept record refers to it; the branch can then be registered again.',
        params: TenantBranchParam,
        response: { 200: DeviceRemoved },
      },
    }, async (request) => removeDevice(db, actorOf(request), requireActedTenant(request), request.params.branch));

    app.get('/api/v1/tenants/:tenant/tokens', {
      config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
      schema: { operationId: 'listTenantTokens', tags: TAG, summary: 'Live tenant tokens (no plaintext)', params: TenantParam, response: { 200: data(Type.Array(TenantToken)) } },
    }, async (request) => ({ data: await listTokens(db, requireActedTenant(request)) }));

    app.post('/api/v1/tenants/:tenant/tokens', {
      config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'writable' } },
      schema: { operationId: 'createTenantToken', tags: TAG, summary: 'Mint a tenant token (plaintext once)', params: TenantParam, body: CreateTokenBody, response: { 201: data(TenantTokenCreated) } },
    }, async (request, reply) => {
      const tenant = requireActedTenant(request);
      return reply.code(201).header('cache-control', 'no-store').send({ data: await mintToken(db, actorOf(request), tenant, request.body.name, request.body.abilities, request.body.training) });
    });

    app.delete('/api/v1/tenants/:tenant/tokens/:id', {
      config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
      schema: { operationId: 'revokeTenantToken', tags: TAG, summary: 'Revoke a tenant token (immediate)', params: Type.Object({ ...TenantParam.properties, ...IdParam.properties }), response: { 200: Revoked } },
    }, async (request) => revokeToken(db, actorOf(request), requireActedTenant(request), request.params.id));

    app.get('/api/v1/tenants/:tenant/api-keys', {
      config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
      schema: { operationId: 'listFiscalisationKeys', tags: TAG, summary: 'Fiscalisation keys, masked', params: TenantParam, response: { 200: data(Type.Array(FiscalisationKey)) } },
    }, async (request) => ({ data: await listApiKeys(db, requireActedTenant(request)) }));

    app.post('/api/v1/tenants/:tenant/api-keys', {
      config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'writable' }, errors: ['device_not_found'] },
      schema: { operationId: 'createFiscalisationKey', tags: TAG, summary: 'Mint a fiscalisation key for /zm/api (plaintext once)', description: 'The body is optional.', params: TenantParam, body: CreateApiKeyBody, response: { 201: data(FiscalisationKeyCreated) } },
      preValidation: async (request) => {
        request.body ??= {};
      },
    }, async (request, reply) => {
      const tenant = requireActedTenant(request);
      const created = await mintApiKey(db, actorOf(request), tenant, request.body);
      return reply.code(201).header('cache-control', 'no-store').send({ data: created });
    });

    app.delete('/api/v1/tenants/:tenant/api-keys/:id', {
      config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
      schema: { operationId: 'revokeFiscalisationKey', tags: TAG, summary: 'Revoke a fiscalisation key (immediate)', params: Type.Object({ ...TenantParam.properties, ...IdParam.properties }), response: { 200: Revoked } },
    }, async (request) => revokeApiKey(db, actorOf(request), requireActedTenant(request), request.params.id));

    const KEYS_TAG = ['Partner: keys'];
    app.get('/api/v1/partner/keys', {
      config: { auth: { surface: 'partner', scope: 'keys:write' } },
      schema: { operationId: 'listPartnerKeys', tags: KEYS_TAG, summary: 'Your secret keys, masked', response: { 200: data(Type.Array(S.PartnerKey)) } },
    }, async (request) => ({ data: await listPartnerKeys(db, requirePartner(request), ctx.clock.now()) }));

    app.post('/api/v1/partner/keys', {
      config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege'] },
      schema: { operationId: 'createPartnerKey', tags: KEYS_TAG, summary: 'Mint a least-privilege key', body: S.CreatePartnerKeyBody, response: { 201: data(S.PartnerKeyCreated) } },
    }, async (request, reply) => {
      const created = await mintPartnerKey(db, ctx.secretBox, requirePartner(request), request.body);
      return reply.code(201).header('cache-control', 'no-store').send({ data: created });
    });

    app.get('/api/v1/partner/keys/:id/secret', {
      config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege', 'secret_unreadable'] },
      schema: { operationId: 'getPartnerKeySecret', tags: KEYS_TAG, summary: 'Read a key\'s plaintext back (audited)', params: IdParam, response: { 200: data(Type.Object({ id: Type.Integer(), secret: Type.String() })) } },
    }, async (request, reply) => {
      const secret = await readPartnerKeySecret(db, ctx.secretBox, requirePartner(request), request.params.id);
      return reply.header('cache-control', 'no-store').send({ data: secret });
    });

    app.post('/api/v1/partner/keys/:id/rotate', {
      config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege', 'already_rotated'] },
      schema: {
        operationId: 'rotatePartnerKey',
        tags: KEYS_TAG,
        summary: 'Mint a replacement; the old key keeps working for the grace window',
        params: IdParam,
        response: { 201: data(Type.Object({ ...S.PartnerKeyCreated.properties, previous: Type.Object({ id: Type.Integer(), expiresAt: Timestamp() }) })) },
      },
    }, async (request, reply) => {
      const rotated = await rotatePartnerKey(db, ctx.secretBox, requirePartner(request), request.params.id, ctx.config.keyRotationGraceSec);
      return reply.code(201).header('cache-control', 'no-store').send({ data: rotated });
    });

    app.delete('/api/v1/partner/keys/:id', {
      config: { auth: { surface: 'partner', scope: 'keys:write' }, errors: ['insufficient_privilege'] },
      schema: { operationId: 'revokePartnerKey', tags: KEYS_TAG, summary: 'Revoke one of your keys (immediate)', params: IdParam, response: { 200: Revoked } },
    }, async (request) => revokePartnerKey(db, requirePartner(request), request.params.id));
  };
}
