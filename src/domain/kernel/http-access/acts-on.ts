// What a route acts on, resolved once from its declaration (`config.auth`) so that handlers
// receive it instead of looking it up: the partner's (or the operator's, or the signed-in user's)
// merchant, `tenant: 'read' | 'writable'`, resolved by a preHandler; and the merchant's branch,
// `branch: 'read' | 'write'`, by the branch rule (kernel/devices/branch-rule.ts) on the first ask.
// A sale's insert applies the rule's SQL form in the statement that takes the number
// (`branchHeaderOf`); its JS form then only says why nothing was stored.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { NotFoundError } from '../../../platform/errors/errors.ts';
import { branchForWrite, merchantOrigin, pickBranch, type MerchantOrigin } from '../devices/branch-rule.ts';
import { devicesOfTenant, type BranchDevice } from '../devices/store.ts';
import { assertTenantWritable, tenantOfPartner } from '../tenants/service.ts';
import { findTenantRow, type TenantRow } from '../tenants/store.ts';
import { principalTenant, unauthenticatedSession, type RouteAuth } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The merchant the route acts on, when it declares `tenant`. */
    actedTenant?: TenantRow;
    /** The merchant's devices, read once per request by the branch rule. */
    merchantDevices?: Promise<BranchDevice[]>;
  }
}

type TenantRouteAuth = Extract<RouteAuth, { surface: 'partner' | 'admin' | 'account' }>;

function declaration(request: FastifyRequest): RouteAuth {
  const auth = request.routeOptions.config?.auth;
  if (!auth) throw new Error(`${request.method} ${request.url}: the route declares no auth`);
  return auth;
}

/** The merchant this route acts on (declared `tenant`): resolved before the handler runs. */
export function requireActedTenant(request: FastifyRequest): TenantRow {
  if (!request.actedTenant)
    throw new Error(`${request.routeOptions.method} ${request.routeOptions.url} uses the merchant it acts on but declares no \`tenant\``);
  return request.actedTenant;
}

async function resolveTenant(ctx: AppContext, request: FastifyRequest, auth: TenantRouteAuth): Promise<TenantRow> {
  let tenant: TenantRow | undefined;
  if (auth.surface === 'partner') {
    if (request.principal?.kind !== 'partner') throw new Error('a partner route without a partner principal');
    tenant = await tenantOfPartner(ctx.db, request.principal.key.partner.id, (request.params as { tenant: number }).tenant);
  } else if (auth.surface === 'admin') {
    tenant = await findTenantRow(ctx.db, (request.params as { tenant: number }).tenant);
    if (!tenant) throw new NotFoundError('Tenant not found.');
  } else {
    if (request.principal?.kind !== 'user') throw new Error('an account route without a signed-in user');
    tenant = await findTenantRow(ctx.db, request.principal.user.tenant.id);
    if (!tenant) throw unauthenticatedSession();
  }
  if (auth.tenant === 'writable') await assertTenantWritable(ctx.db, tenant, ctx.clock.now());
  return tenant;
}

function branchDeclaration(request: FastifyRequest): 'read' | 'write' {
  const auth = declaration(request);
  if (auth.surface !== 'merchant' || !auth.branch)
    throw new Error(`${request.routeOptions.method} ${request.routeOptions.url} uses the merchant's branch but declares no \`branch\``);
  return auth.branch;
}

function devicesOf(ctx: AppContext, request: FastifyRequest): Promise<BranchDevice[]> {
  const tenant = principalTenant(request.principal);
  if (!tenant) throw new Error('a merchant route without a merchant principal');
  request.merchantDevices ??= devicesOfTenant(ctx.db, tenant.id);
  return request.merchantDevices;
}

/** X-Branch as sent (the branch rule applied in a statement, e.g. the sale's insert). */
export function branchHeaderOf(request: FastifyRequest): string | undefined {
  branchDeclaration(request);
  return sentBranchHeader(request);
}

/**
 * X-Branch as sent, for a route that declares no `branch`: a note or a reissue goes to its
 * original's branch, and the header is only part of the request's idempotency fingerprint.
 */
export function sentBranchHeader(request: FastifyRequest): string | undefined {
  const header = request.headers['x-branch'];
  return Array.isArray(header) ? header[0] : header;
}

/** The branch the request reads (X-Branch, else the rule's default); undefined when none applies. */
export async function readBranch(ctx: AppContext, request: FastifyRequest): Promise<BranchDevice | undefined> {
  return pickBranch(await devicesOf(ctx, request), branchHeaderOf(request));
}

/** The branch X-Branch names (branch_not_found if the merchant has none by that id); undefined without the header: a list's filter. */
export async function namedBranch(ctx: AppContext, request: FastifyRequest): Promise<BranchDevice | undefined> {
  const header = branchHeaderOf(request);
  return header === undefined ? undefined : pickBranch(await devicesOf(ctx, request), header);
}

/** The branch the request writes to: it must exist and be initialised (declared `branch: 'write'`). */
export async function writeBranch(ctx: AppContext, request: FastifyRequest): Promise<BranchDevice> {
  if (branchDeclaration(request) !== 'write')
    throw new Error(`${request.routeOptions.method} ${request.routeOptions.url} writes to a branch it declares \`branch: 'read'\``);
  return initialisedBranch(ctx, request);
}

/**
 * The branch a live read asks the VSDC of (declared `branch: 'read'`: it changes nothing), which
 * must exist and be initialised as for a write.
 */
export async function initialisedBranch(ctx: AppContext, request: FastifyRequest): Promise<BranchDevice> {
  return branchForWrite(await merchantDevices(ctx, request), branchHeaderOf(request), originOfPrincipal(request));
}

/** Who gives the requesting merchant its devices (for what a merchant without one is told). */
function originOfPrincipal(request: FastifyRequest): MerchantOrigin | undefined {
  const tenant = principalTenant(request.principal);
  return tenant ? merchantOrigin(tenant) : undefined;
}

/** The merchant's devices (the route declares `branch`), read once per request. */
export function merchantDevices(ctx: AppContext, request: FastifyRequest): Promise<BranchDevice[]> {
  branchDeclaration(request);
  return devicesOf(ctx, request);
}

/**
 * Resolves the declared `tenant` before the handler runs: a preHandler on the routes that declare
 * one only, so the others (the sale path among them) pay nothing for it.
 */
export function registerActsOn(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (!auth || !('tenant' in auth) || !auth.tenant) return;
    const resolve = async (request: FastifyRequest) => {
      request.actedTenant = await resolveTenant(ctx, request, auth as TenantRouteAuth);
    };
    route.preHandler = [...[route.preHandler ?? []].flat(), resolve];
  });
}
