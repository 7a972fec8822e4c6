// What storing a document answered, as the write paths need it: the insert's options for the
// merchant (its month, its offline policy, the filers' channel) and the stored document or the
// error that says why nothing was stored (no device, the branch down, a kind its unit does not file).
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { currentMonth } from '../../../credentials/standing.ts';
import { ApiError, fieldError, type ValidationError } from '../../../platform/errors/errors.ts';
import { authorityProfile, profileOf } from '../../../authorities/index.ts';
import type { SalesType } from '../../../authorities/port/index.ts';
import { FILING_CHANNEL, PROCESS_TAG } from '../signals/sale-signals.ts';
import type { insertDocument, InsertOutcome, StoredDocument } from './document-insert.ts';

export function storeOptions(ctx: AppContext, tenant: TenantAccount): Parameters<typeof insertDocument>[3] {
  const month = currentMonth(ctx.clock.now());
  const refuseWhenDown = tenant.offlinePolicy === 'refuse';
  // Embedded: one process, where the in-memory signal is enough.
  return ctx.database.kind === 'postgres'
    ? { month, refuseWhenDown, notify: { channel: FILING_CHANNEL, origin: PROCESS_TAG } }
    : { month, refuseWhenDown };
}

/** What a write asked for, for the words of a refusal of its kind. */
interface KindAsked {
  /** The merchant's authority. */
  authority: string;
  salesType: SalesType;
  /** The credential was minted in training mode. */
  training?: boolean | undefined;
}

/** The stored document, or the error that says why nothing was stored. */
export function storedOrThrow(ctx: AppContext, outcome: InsertOutcome, branch: string, asked: KindAsked): StoredDocument {
  switch (outcome.kind) {
    case 'stored':
      return outcome.document;
    case 'branch_down':
      throw vsdcUnavailable(ctx, outcome.branch);
    case 'no_device':
      throw branchNotInitialized(branch);
    case 'kind_refused':
      throw kindRefused(asked, outcome.branch, outcome.protocol);
  }
}

/** The branch's unit files no document of the kind (a KRA OSCU branch and a training document). */
function kindRefused(asked: KindAsked, branch: string, protocol: string): ValidationError {
  const profile = authorityProfile(profileOf(asked.authority, protocol));
  const instead =
    asked.training === true
      ? 'issue its documents with a credential that is not in training mode, or train on a branch whose unit files training documents'
      : `send salesType ${profile.salesTypes.join(' or ')}`;
  return fieldError(
    'salesType',
    `The unit of this merchant's authority at branch ${branch} (${profile.name}) files no ${asked.salesType} documents${asked.training === true ? ' (this credential was minted in training mode)' : ''}: ${instead}. ` +
      'Nothing was stored and no invoice number was used.',
  );
}

function branchNotInitialized(branch: string): ApiError {
  return new ApiError('branch_not_initialized', `Branch ${branch} is not initialised with the authority yet, so it cannot fiscalise.`);
}

/** Offline policy `refuse`: the branch's VSDC is known unreachable, so no invoice is issued. */
function vsdcUnavailable(ctx: AppContext, branch: string): ApiError {
  const retryAfter = Math.max(1, Math.ceil(ctx.config.vsdcProbeMs / 1000));
  return new ApiError(
    'vsdc_unavailable',
    `The VSDC of branch ${branch} cannot be reached, and this merchant issues no invoice while it is offline (offline policy "refuse"). ` +
      `Nothing was stored and no invoice number was used: retry the same request in ${retryAfter} s or later.`,
    { 'retry-after': String(retryAfter) },
  );
}
