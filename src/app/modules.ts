// Every module's HTTP routes, background workers and context members, in one list each.
// app.ts registers the routes; server.ts starts the workers; both provide the members first.
// Adding a module = one line in each list.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext, ContextMember } from '../domain/kernel/context.ts';
import { TENANT_TOKEN_LOOKUPS } from '../domain/kernel/http-access/authenticate.ts';
import type { WorkerFactory } from '../platform/workers/index.ts';
import { signUpRoutes } from '../domain/merchant/accounts/sign-up-routes.ts';
import { sessionRoutes } from '../domain/merchant/accounts/session-routes.ts';
import { userRoutes } from '../domain/merchant/accounts/user-routes.ts';
import { outboxRoutes } from '../domain/merchant/accounts/outbox-routes.ts';
import { developerTokenRoutes } from '../domain/merchant/accounts/developer-token-routes.ts';
import { developerApiKeyRoutes } from '../domain/merchant/accounts/developer-api-key-routes.ts';
import { backlogAlarmWorker } from '../domain/partner/alarms/worker.ts';
import { catalogueRoutes } from '../domain/kernel/catalogue/routes.ts';
import { CLASSIFICATION_CATALOGUE } from '../domain/kernel/catalogue/service.ts';
import { catalogueWorker } from '../domain/kernel/catalogue/worker.ts';
import { branchUserWorker } from '../domain/kernel/branch-users/worker.ts';
import { compatRoutes } from '../domain/fiscal/compat/routes.ts';
import { tillLoginRoutes } from '../domain/fiscal/compat/till-login-routes.ts';
import { consoleRoutes } from '../domain/partner/console/partner-console-routes.ts';
import { adminConsoleRoutes } from '../domain/partner/console/admin-console-routes.ts';
import { consolePageRoutes } from '../domain/partner/console/console-page-routes.ts';
import { customerRoutes } from '../domain/merchant/customers/routes.ts';
import { customerRetryWorker } from '../domain/merchant/customers/worker.ts';
import { filingWorker } from '../domain/fiscal/filing/worker.ts';
import { importRoutes } from '../domain/feeds/imports/routes.ts';
import { importFilingWorker, importPullWorker } from '../domain/feeds/imports/worker.ts';
import { itemRoutes } from '../domain/merchant/items/item-routes.ts';
import { itemReconciliationRoutes } from '../domain/merchant/items/item-reconciliation-routes.ts';
import { merchantAuditRoutes } from '../domain/merchant/audit/routes.ts';
import { noticeRoutes } from '../domain/feeds/notices/routes.ts';
import { authorityPullWorker } from '../domain/feeds/notices/worker.ts';
import { principalRoutes } from '../domain/feeds/principals/routes.ts';
import { principalPullWorker } from '../domain/feeds/principals/worker.ts';
import { stockLedgerRoutes } from '../domain/feeds/stock-ledger/routes.ts';
import { stockLedgerPullWorker } from '../domain/feeds/stock-ledger/worker.ts';
import { draftScanWorker } from '../domain/merchant/items/draft-scan.ts';
import { itemRetryWorker } from '../domain/merchant/items/worker.ts';
import { accountDeviceRoutes } from '../domain/merchant/accounts/devices-routes.ts';
import { tenantRoutes } from '../domain/partner/provisioning/tenant-routes.ts';
import { tenantDeviceRoutes } from '../domain/partner/provisioning/tenant-device-routes.ts';
import { tenantCredentialRoutes } from '../domain/partner/provisioning/tenant-credential-routes.ts';
import { partnerKeyRoutes } from '../domain/partner/provisioning/partner-key-routes.ts';
import { purchaseRoutes } from '../domain/feeds/purchases/purchase-routes.ts';
import { purchaseAnswerRoutes } from '../domain/feeds/purchases/purchase-answer-routes.ts';
import { purchaseFilingWorker, purchasePullWorker } from '../domain/feeds/purchases/worker.ts';
import { receiptRoutes } from '../domain/fiscal/receipts/routes.ts';
import { merchantReportRoutes } from '../domain/fiscal/reports/merchant-report-routes.ts';
import { partnerReportRoutes } from '../domain/fiscal/reports/partner-report-routes.ts';
import { adminReportRoutes } from '../domain/fiscal/reports/admin-report-routes.ts';
import { reconciliationRoutes } from '../domain/fiscal/reconciliation/routes.ts';
import { reconciliationWorker } from '../domain/fiscal/reconciliation/worker.ts';
import { salesRoutes } from '../domain/fiscal/sales/sales-routes.ts';
import { noteRoutes } from '../domain/fiscal/sales/note-routes.ts';
import { resolutionRoutes } from '../domain/fiscal/sales/resolution-routes.ts';
import { meRoutes } from '../domain/fiscal/sales/me-routes.ts';
import { SALE_SIGNALS } from '../domain/fiscal/signals/sale-signals.ts';
import { DOCUMENT_INSERTS } from '../domain/fiscal/sales/document-insert.ts';
import { FILING_OUTCOMES } from '../domain/fiscal/filing/outcome-store.ts';
import { STOCK_SIGNALS } from '../domain/fiscal/stock/signals.ts';
import { stockRoutes } from '../domain/fiscal/stock/routes.ts';
import { stockWorker } from '../domain/fiscal/stock/worker.ts';
import { webhookRoutes } from '../domain/partner/webhooks/routes.ts';
import { webhookWorkers } from '../domain/partner/webhooks/workers.ts';
import { FISCAL_GAUGES } from '../domain/fiscal/filing/gauges.ts';
import { BUILTIN_SIMULATOR } from '../domain/kernel/devices/builtin-simulator.ts';
import { MAIL_GAUGES } from '../domain/kernel/mail/gauges.ts';
import { mailWorker } from '../domain/kernel/mail/worker.ts';

// The group commits come last: members close newest first, so they commit what waits while the signals still listen.
const moduleMembers: Array<ContextMember<unknown>> = [
  FISCAL_GAUGES,
  MAIL_GAUGES,
  SALE_SIGNALS,
  CLASSIFICATION_CATALOGUE,
  STOCK_SIGNALS,
  TENANT_TOKEN_LOOKUPS,
  BUILTIN_SIMULATOR,
  DOCUMENT_INSERTS,
  FILING_OUTCOMES,
];

/** Builds every module's context members on `ctx` (those already there are kept). */
export function provideModuleMembers(ctx: AppContext): void {
  for (const member of moduleMembers) ctx.members.provide(ctx, member);
}

export const moduleRoutes: Array<(ctx: AppContext) => FastifyPluginAsync> = [
  tenantRoutes,
  tenantDeviceRoutes,
  tenantCredentialRoutes,
  partnerKeyRoutes,
  salesRoutes,
  noteRoutes,
  resolutionRoutes,
  meRoutes,
  webhookRoutes,
  customerRoutes,
  itemRoutes,
  itemReconciliationRoutes,
  importRoutes,
  purchaseRoutes,
  purchaseAnswerRoutes,
  noticeRoutes,
  principalRoutes,
  stockLedgerRoutes,
  catalogueRoutes,
  receiptRoutes,
  merchantReportRoutes,
  partnerReportRoutes,
  adminReportRoutes,
  reconciliationRoutes,
  consoleRoutes,
  adminConsoleRoutes,
  consolePageRoutes,
  tillLoginRoutes,
  compatRoutes,
  stockRoutes,
  signUpRoutes,
  sessionRoutes,
  userRoutes,
  outboxRoutes,
  merchantAuditRoutes,
  developerTokenRoutes,
  developerApiKeyRoutes,
  accountDeviceRoutes,
];

export const moduleWorkers: Array<WorkerFactory<AppContext>> = [
  filingWorker,
  catalogueWorker,
  ...webhookWorkers,
  customerRetryWorker,
  itemRetryWorker,
  branchUserWorker,
  draftScanWorker,
  importPullWorker,
  importFilingWorker,
  purchasePullWorker,
  purchaseFilingWorker,
  authorityPullWorker,
  principalPullWorker,
  stockLedgerPullWorker,
  backlogAlarmWorker,
  reconciliationWorker,
  stockWorker,
  (ctx) => mailWorker(ctx),
];
