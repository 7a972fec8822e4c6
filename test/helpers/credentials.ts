import { sql } from 'kysely';
import type { AppContext } from '../../src/domain/kernel/context.ts';
import { PREFIXES, hashSecret, last4, mintSecret } from '../../src/credentials/secret-format.ts';
import { insertPartnerKey } from '../../src/domain/partner/provisioning/partner-keys-service.ts';

/** A tenant token with only the abilities given (as the merchant's developer screen can mint). */
export async function tokenWithAbilities(ctx: AppContext, tenantId: number, abilities: string[]): Promise<string> {
  const token = mintSecret(PREFIXES.tenantToken);
  await ctx.db
    .insertInto('tenant_tokens')
    .values({ tenant_id: tenantId, name: 'restricted', abilities, token_hash: hashSecret(token), last4: last4(token) })
    .execute();
  return token;
}

export async function partnerKeyWithScopes(
  ctx: AppContext,
  partnerId: number,
  scopes: string[],
  mode: 'live' | 'test' = 'live',
): Promise<{ id: number; secret: string }> {
  const { row, secret } = await insertPartnerKey(ctx.db, ctx.secretBox, partnerId, { name: 'scoped', mode, scopes });
  return { id: row.id, secret };
}

/** Marks a registered device initialised as if the handshake had succeeded. */
export async function markInitialised(ctx: AppContext, deviceId: number, sdcId: string): Promise<void> {
  await ctx.db
    .updateTable('devices')
    .set({ initialized: true, sdc_id: sdcId, mrc_no: 'WIS00000001', next_invoice_no: 1, initialized_at: sql`now()` })
    .where('id', '=', deviceId)
    .execute();
}

/** A secret with a valid checksum that no row holds. */
export const unknownSecret = (prefix: string) => mintSecret(prefix);
