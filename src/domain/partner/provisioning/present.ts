import { PREFIXES, masked } from '../../../credentials/secret-format.ts';
import { iso } from '../../../platform/lib/time.ts';
import type { PartnerKeyRow } from './store.ts';

export interface PartnerResource {
  id: number;
  name: string;
  status: 'active' | 'suspended';
  createdAt: string;
}

export interface PartnerKeyResource {
  id: number;
  name: string;
  mode: 'live' | 'test';
  scopes: string[];
  masked: string;
  createdAt: string;
  expiresAt: string | null;
  rotatedToId: number | null;
  lastUsedAt: string | null;
}

/** The secret prefix of a partner key of that mode (sk_live_ or sk_test_). */
export const partnerKeyPrefix = (mode: 'live' | 'test') => (mode === 'live' ? PREFIXES.partnerLive : PREFIXES.partnerTest);

export function presentPartner(row: { id: number; name: string; status: 'active' | 'suspended'; created_at: Date }): PartnerResource {
  return { id: row.id, name: row.name, status: row.status, createdAt: row.created_at.toISOString() };
}

export function presentPartnerKey(row: PartnerKeyRow): PartnerKeyResource {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    scopes: row.scopes,
    masked: masked(partnerKeyPrefix(row.mode), row.last4),
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    rotatedToId: row.rotated_to_id,
    lastUsedAt: iso(row.last_used_at),
  };
}
