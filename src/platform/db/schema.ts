// The database as Kysely sees it: one interface per module's tables, composed here.
import type { AccountTables } from './tables/accounts.ts';
import type { AuthorityTables } from './tables/authority.ts';
import type { BranchUserTables } from './tables/branch-users.ts';
import type { CompatTables } from './tables/compat.ts';
import type { FeedTables } from './tables/feeds.ts';
import type { ConsoleTables } from './tables/console.ts';
import type { FoundationTables } from './tables/foundation.ts';
import type { ItemTables } from './tables/items.ts';
import type { MailTables } from './tables/mail.ts';
import type { PrincipalTables } from './tables/principals.ts';
import type { PurchaseTables } from './tables/purchases.ts';
import type { ReportTables } from './tables/reports.ts';
import type { ReconciliationTables } from './tables/reconciliation.ts';
import type { SalesTables } from './tables/sales.ts';
import type { StockTables } from './tables/stock.ts';
import type { WebhookTables } from './tables/webhooks.ts';
export interface DB
  extends
    FoundationTables,
    SalesTables,
    WebhookTables,
    ItemTables,
    ConsoleTables,
    CompatTables,
    PurchaseTables,
    AuthorityTables,
    ReportTables,
    ReconciliationTables,
    StockTables,
    AccountTables,
    PrincipalTables,
    BranchUserTables,
    MailTables,
    FeedTables {}
