// The one-time links mailed to a user (verification, password reset, invitation): made, voided
// with their waiting mails, capped per hour.
import type { Kysely } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import { newSecret, sha256 } from '../../../credentials/user-secrets.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { UserRole, UserTokenKind } from '../../../platform/db/tables/accounts.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { linkTopic } from '../../kernel/mail/outbox.ts';
import { cancelWaitingMails } from '../../kernel/mail/store.ts';
import * as store from './store.ts';

export const HOUR_MS = 3_600_000;
export const LINK_VALID_MS: Record<UserTokenKind, number> = { verify: 24 * HOUR_MS, reset: HOUR_MS, invitation: 72 * HOUR_MS };

/** Mailed links of one kind a user can get in an hour, whoever asks (`linkCapReached`). */
export const LINKS_PER_HOUR = 5;

function linkOf(ctx: AppContext, kind: UserTokenKind, token: string): string {
  const page = kind === 'verify' ? 'verify' : kind === 'reset' ? 'reset-password' : 'accept-invitation';
  return `${ctx.config.publicUrl}/console/account/${page}#token=${token}`;
}

/** A new one-time link (its plaintext goes only into the mail, or to the partner who asked). */
export async function createLink(
  db: Kysely<DB>,
  ctx: AppContext,
  values: { kind: UserTokenKind; tenantId: number; userId: number | null; email: string; role: UserRole | null; createdBy: string | null },
) {
  const now = ctx.clock.now();
  const token = newSecret();
  const expiresAt = new Date(now.getTime() + LINK_VALID_MS[values.kind]);
  const row = await store.insertUserToken(db, {
    token_hash: sha256(token),
    kind: values.kind,
    tenant_id: values.tenantId,
    user_id: values.userId,
    email: values.email,
    role: values.role,
    created_by: values.createdBy,
    created_at: now,
    expires_at: expiresAt,
  });
  return { id: row.id, link: linkOf(ctx, values.kind, token), expiresAt };
}

/**
 * Voids a user's unused links of `kind` (a newer one is on its way, or the password changed), and
 * with them their mails still waiting in the outbox: a link that no longer works is not mailed.
 */
export async function voidLinks(trx: Kysely<DB>, userId: number, kind: UserTokenKind, now: Date): Promise<void> {
  await store.voidUserTokens(trx, userId, kind, now);
  await cancelWaitingMails(trx, linkTopic(kind, userId), now);
}

/**
 * Whether a user already got `LINKS_PER_HOUR` links of `kind` in the last hour: then a request for
 * another (a reset, a new verification link, a sign-up with a taken address) mails nothing and
 * answers the same, so nobody can fill a mailbox through the gateway.
 */
export async function linkCapReached(ctx: AppContext, userId: number, kind: UserTokenKind, now: Date): Promise<boolean> {
  return (await store.linksSince(ctx.db, userId, kind, new Date(now.getTime() - HOUR_MS))) >= LINKS_PER_HOUR;
}

export const linkInvalid = (what: string, askAgain = 'Ask for a new one.') =>
  new ApiError('link_invalid', `This ${what} link is unknown, already used or expired. ${askAgain}`);
