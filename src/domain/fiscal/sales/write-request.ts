import type { FastifyRequest } from 'fastify';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import type { Party } from '../../kernel/audit/store.ts';
import { merchantActor, requireTenant, trainingCredential } from '../../kernel/http-access/auth.ts';
import { sentBranchHeader } from '../../kernel/http-access/acts-on.ts';
import type { PartyWriteRequest } from './service.ts';

/**
 * The write an HTTP request asks for. On the merchant's own surface: its merchant, its credential
 * as the issuer, X-Branch, the Idempotency-Key and the credential's training mode. On behalf of a
 * merchant (`onBehalf`: a partner's hand): the merchant and party given, no branch (the failed
 * sale's is used), the Idempotency-Key only.
 */
export function writeRequestOf(request: FastifyRequest, onBehalf?: { tenant: TenantAccount; issuer: Party }): PartyWriteRequest {
  const sent = request.headers['idempotency-key'];
  const idempotencyHeader = Array.isArray(sent) ? sent[0] : sent;
  if (onBehalf) return { ...onBehalf, branchHeader: undefined, idempotencyHeader };
  return {
    tenant: requireTenant(request),
    issuer: merchantActor(request),
    branchHeader: sentBranchHeader(request),
    idempotencyHeader,
    training: trainingCredential(request),
  };
}
