import type { FastifyRequest } from 'fastify';
import { requirePartner } from '../../kernel/http-access/auth.ts';
import type { Actor } from '../../kernel/audit/store.ts';

export const TAG = ['Partner: provisioning'];

/** The partner key that acts, as the audit trail names it. */
export function actorOf(request: FastifyRequest): Actor {
  const key = requirePartner(request);
  return { type: 'partner_key', keyId: key.keyId, partnerId: key.partner.id };
}
