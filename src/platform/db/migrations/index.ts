import type { Migration, MigrationProvider } from 'kysely';
import { sql, type Kysely } from 'kysely';
import * as foundation from './0001_foundation.ts';
import * as sales from './0002_sales.ts';
import * as webhooks from './0003_webhooks.ts';
import * as catalogueItems from './0004_catalogue_items.ts';
import * as consoleViews from './0005_console.ts';
import * as compat from './0006_compat.ts';
import * as itemDrafts from './0007_item_drafts.ts';
import * as rateLimitsUnlogged from './0008_rate_limits_unlogged.ts';
import * as outages from './0009_outages.ts';
import * as lineDiscounts from './0010_line_discounts.ts';
import * as tillInvoices from './0011_till_invoices.ts';
import * as purchases from './0013_purchases.ts';
import * as authorityFeeds from './0014_authority_feeds.ts';
import * as reports from './0015_reports.ts';
import * as reconciliation from './0016_reconciliation.ts';
import * as stock from './0012_stock.ts';
import * as salesWriteIndexes from './0018_sales_write_indexes.ts';
import * as resolutionsReceipts from './0017_resolutions_receipts.ts';
import * as merchantAccounts from './0019_merchant_accounts.ts';
import * as salesListFilters from './0021_sales_list_filters.ts';
import * as tillLoginsOutliveDevices from './0022_till_logins_outlive_devices.ts';
import * as documentKinds from './0023_document_kinds.ts';
import * as principals from './0024_principals.ts';
import * as itemCompositions from './0025_item_compositions.ts';
import * as auditByTenant from './0026_audit_by_tenant.ts';
import * as manualPurchases from './0027_manual_purchases.ts';
import * as branchUsers from './0028_branch_users.ts';
import * as stockLedger from './0029_stock_ledger.ts';
import * as authorityCodes from './0030_authority_codes.ts';
import * as secretKey from './0031_secret_key.ts';
import * as userTokensByUser from './0032_user_tokens_by_user.ts';
import * as fleetPolls from './0033_fleet_polls.ts';
import * as failedDocumentsRecent from './0034_failed_documents_recent.ts';
import * as fleetViews from './0035_fleet_views.ts';
import * as documentIssuers from './0036_document_issuers.ts';
import * as mailOutbox from './0037_mail_outbox.ts';
import * as authorityProfiles from './0038_authority_profiles.ts';
import * as feedPulls from './0039_feed_pulls.ts';
import * as kenyaDevices from './0040_kenya_devices.ts';
import * as originalInvoiceNo from './0041_original_invoice_no.ts';
import * as cataloguePerAuthority from './0042_catalogue_per_authority.ts';

/** Every migration, in order. A migration is a list of SQL statements run one by one. */
const migrations: Record<string, { up: string[] }> = {
  '0001_foundation': foundation,
  '0002_sales': sales,
  '0003_webhooks': webhooks,
  '0004_catalogue_items': catalogueItems,
  '0005_console': consoleViews,
  '0006_compat': compat,
  '0007_item_drafts': itemDrafts,
  '0008_rate_limits_unlogged': rateLimitsUnlogged,
  '0009_outages': outages,
  '0010_line_discounts': lineDiscounts,
  '0011_till_invoices': tillInvoices,
  '0013_purchases': purchases,
  '0014_authority_feeds': authorityFeeds,
  '0015_reports': reports,
  '0016_reconciliation': reconciliation,
  '0012_stock': stock,
  '0018_sales_write_indexes': salesWriteIndexes,
  '0017_resolutions_receipts': resolutionsReceipts,
  '0019_merchant_accounts': merchantAccounts,
  '0021_sales_list_filters': salesListFilters,
  '0022_till_logins_outlive_devices': tillLoginsOutliveDevices,
  '0023_document_kinds': documentKinds,
  '0024_principals': principals,
  '0025_item_compositions': itemCompositions,
  '0026_audit_by_tenant': auditByTenant,
  '0027_manual_purchases': manualPurchases,
  '0028_branch_users': branchUsers,
  '0029_stock_ledger': stockLedger,
  '0030_authority_codes': authorityCodes,
  '0031_secret_key': secretKey,
  '0032_user_tokens_by_user': userTokensByUser,
  '0033_fleet_polls': fleetPolls,
  '0034_failed_documents_recent': failedDocumentsRecent,
  '0035_fleet_views': fleetViews,
  '0036_document_issuers': documentIssuers,
  '0037_mail_outbox': mailOutbox,
  '0038_authority_profiles': authorityProfiles,
  '0039_feed_pulls': feedPulls,
  '0040_kenya_devices': kenyaDevices,
  '0041_original_invoice_no': originalInvoiceNo,
  '0042_catalogue_per_authority': cataloguePerAuthority,
};

function toKysely(statements: string[]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, toKysely(m.up)]));
  },
};

/** A fingerprint of the migration set, so that test templates are rebuilt when it changes. */
export function migrationsFingerprint(): string {
  return JSON.stringify(Object.entries(migrations).map(([name, m]) => [name, m.up]));
}
