// The developer screen's API (docs/merchants.md): a signed-in merchant user lists, mints and
// revokes its merchant's tenant tokens and fiscalisation keys, as the merchant's partner does
// under /api/v1/tenants/{tenant}. Viewers read; owners and admins mint and revoke. The user is
// the actor in the audit log.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { assertTenantBillable } from '../../../credentials/standing.ts';
import type { SessionUser } from '../../../credentials/user-session.ts';
import { requireUser } from '../../kernel/http-access/auth.ts';
import { withExample } from '../../../platform/http/schema-helpers.ts';
import type { Actor } from '../../kernel/audit/store.ts';
import * as P from '../../kernel/tenants/schemas.ts';

export const TAG = ['Merchant: developer screen'];

// The partner's bodies, with examples that succeed for a merchant with no branch registered yet.
export const CreateTokenBody = withExample(Type.Object(P.CreateTokenBody.properties), {
  name: 'Website shop',
  abilities: ['invoices:read', 'invoices:write'],
});
export const CreateApiKeyBody = withExample(Type.Object(P.CreateApiKeyBody.properties), { dialect: 'bare' });

export function who(request: FastifyRequest): { user: SessionUser; actor: Actor; tenant: { id: number } } {
  const { user } = requireUser(request);
  return { user, actor: { type: 'user', userId: user.userId }, tenant: { id: user.tenant.id } };
}

/** Minting is refused while the merchant is not billable (402), as the partner's minting is. */
export function forMint(request: FastifyRequest) {
  const caller = who(request);
  assertTenantBillable(caller.user.tenant);
  return caller;
}
