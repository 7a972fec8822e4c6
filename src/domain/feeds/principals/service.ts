// The principals an RVAT agent sells for (selectPrincipals): pulled per initialised branch, from
// its previous answer's resultDt on, like the customs lines and purchases; stored per tenant by
// merchant/principals (where the sale path reads them), a changed report replacing the row.
import type { Principal } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { receivedList, receivedText } from '../../../authorities/zra-vsdc/received.ts';
import { finishPull, pullBranch, type ClaimedPull, pullDueBranchesOf } from '../pulls/branch-pulls.ts';
import { listPrincipals, upsertPrincipals, type ReceivedPrincipal } from '../../merchant/principals/store.ts';
import { presentPrincipal } from './present.ts';
import type { ListPrincipalsQuery, PrincipalResource } from './schemas.ts';

/** A principal the gateway can key (an `id`), or undefined. */
export function toReceivedPrincipal(raw: Principal): ReceivedPrincipal | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const id = receivedText(raw.id);
  if (id === null) return undefined;
  return {
    principal_id: id,
    tpin: receivedText(raw.tpin),
    name: receivedText(raw.principalNm),
    address: receivedText(raw.principalAddress),
    email: receivedText(raw.principalEmail),
    tel: receivedText(raw.principalTelNo),
    account_no: receivedText(raw.accountNo),
    principal: raw,
  };
}

/** Pulls one leased branch: what changed since its last answer's resultDt. */
async function pullPrincipalBranch(ctx: AppContext, pull: ClaimedPull, intervalMs: number): Promise<void> {
  await pullBranch(ctx, 'principal_pulls', pull, intervalMs, ctx.vsdc.selectPrincipals, async (data, resultDt) => {
    const principals = receivedList<Principal>(data, 'taxpayerPrincipalList').map(toReceivedPrincipal).filter((p) => p !== undefined);
    await ctx.db.transaction().execute(async (trx) => {
      await upsertPrincipals(trx, pull.tenantId, principals);
      await finishPull(trx, 'principal_pulls', pull.deviceId, resultDt, intervalMs);
    });
  });
}

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDuePrincipalBranches(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranchesOf(ctx, 'principal_pulls', (pull) => pullPrincipalBranch(ctx, pull, intervalMs));
}

export async function listPrincipalsPage(ctx: AppContext, tenantId: number, query: ListPrincipalsQuery): Promise<Page<PrincipalResource>> {
  const { rows, total } = await listPrincipals(ctx.db, tenantId, query.page);
  return pageOf(rows.map(presentPrincipal), total, query.page);
}
