// The principals an RVAT agent sells for: pulled per initialised branch (the adapter's
// principals, from the previous answer's cursor on), like the customs lines and purchases; stored
// per tenant by merchant/principals (where the sale path reads them), a changed report replacing the row.
import type { AuthorityPrincipal } from '../../../authorities/port/index.ts';
import type { AppContext } from '../../kernel/context.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { pullDueBranches, type BranchFeedOf } from '../pulls/template.ts';
import { listPrincipals, upsertPrincipals, type ReceivedPrincipal } from '../../merchant/principals/store.ts';
import { presentPrincipal } from './present.ts';
import type { ListPrincipalsQuery, PrincipalResource } from './schemas.ts';

/** A principal as merchant/principals keeps it. */
function toReceivedPrincipal(p: AuthorityPrincipal): ReceivedPrincipal {
  return {
    principal_id: p.id,
    tpin: p.tpin,
    name: p.name,
    address: p.address,
    email: p.email,
    tel: p.tel,
    account_no: p.accountNo,
    principal: p.raw,
  };
}

const principalsFeed: BranchFeedOf<AuthorityPrincipal> = {
  name: 'principals',
  read: (authority) => authority.feeds.principals,
  store: async (trx, pull, principals) => {
    await upsertPrincipals(trx, pull.tenantId, principals.map(toReceivedPrincipal));
  },
};

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDuePrincipalBranches(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranches(ctx, principalsFeed, intervalMs);
}

export async function listPrincipalsPage(ctx: AppContext, tenantId: number, query: ListPrincipalsQuery): Promise<Page<PrincipalResource>> {
  const { rows, total } = await listPrincipals(ctx.db, tenantId, query.page);
  return pageOf(rows.map(presentPrincipal), total, query.page);
}
