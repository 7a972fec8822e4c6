// Every module's HTTP routes, background workers and context members, in one list each.
// app.ts registers the routes; server.ts starts the workers; both provide the members first.
// Adding a module = one line in each list.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext, ContextMember } from '../context.ts';
import type { WorkerFactory } from '../workers/index.ts';
import { accountRoutes } from './accounts/routes.ts';
import { developerRoutes } from './accounts/developer-routes.ts';
import { backlogAlarmWorker } from './alarms/worker.ts';
import { catalogueRoutes } from './catalogue/routes.ts';
import { CLASSIFICATION_CATALOGUE } from './catalogue/service.ts';
import { catalogueWorker } from './catalogue/worker.ts';
import { compatRoutes } from './compat/routes.ts';
import { tillLoginRoutes } from './compat/till-login-routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { customerRoutes } from './customers/routes.ts';
import { customerRetryWorker } from './customers/worker.ts';
import { filingWorker } from './filing/worker.ts';
import { importRoutes } from './imports/routes.ts';
import { importFilingWorker, importPullWorker } from './imports/worker.ts';
import { itemRoutes } from './items/routes.ts';
import { noticeRoutes } from './notices/routes.ts';
import { authorityPullWorker } from './notices/worker.ts';
import { draftScanWorker } from './items/draft-scan.ts';
import { itemRetryWorker } from './items/worker.ts';
import { accountDeviceRoutes } from './provisioning/account-devices-routes.ts';
import { provisioningRoutes } from './provisioning/routes.ts';
import { purchaseRoutes } from './purchases/routes.ts';
import { purchaseFilingWorker, purchasePullWorker } from './purchases/worker.ts';
import { receiptRoutes } from './receipts/routes.ts';
import { reportRoutes } from './reports/routes.ts';
import { reconciliationRoutes } from './reconciliation/routes.ts';
import { reconciliationWorker } from './reconciliation/worker.ts';
import { salesRoutes } from './sales/routes.ts';
import { SALE_SIGNALS } from './sales/signals.ts';
import { STOCK_SIGNALS } from './stock/signals.ts';
import { stockRoutes } from './stock/routes.ts';
import { stockWorker } from './stock/worker.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { webhookWorkers } from './webhooks/workers.ts';

export const moduleMembers: Array<ContextMember<unknown>> = [SALE_SIGNALS, CLASSIFICATION_CATALOGUE, STOCK_SIGNALS];

/** Builds every module's context members on `ctx` (those already there are kept). */
export function provideModuleMembers(ctx: AppContext): void {
  for (const member of moduleMembers) ctx.members.provide(ctx, member);
}

export const moduleRoutes: Array<(ctx: AppContext) => FastifyPluginAsync> = [
  provisioningRoutes,
  salesRoutes,
  webhookRoutes,
  customerRoutes,
  itemRoutes,
  importRoutes,
  purchaseRoutes,
  noticeRoutes,
  catalogueRoutes,
  receiptRoutes,
  reportRoutes,
  reconciliationRoutes,
  consoleRoutes,
  tillLoginRoutes,
  compatRoutes,
  stockRoutes,
  accountRoutes,
  developerRoutes,
  accountDeviceRoutes,
];

export const moduleWorkers: WorkerFactory[] = [
  filingWorker,
  catalogueWorker,
  ...webhookWorkers,
  customerRetryWorker,
  itemRetryWorker,
  draftScanWorker,
  importPullWorker,
  importFilingWorker,
  purchasePullWorker,
  purchaseFilingWorker,
  authorityPullWorker,
  backlogAlarmWorker,
  reconciliationWorker,
  stockWorker,
];
