// Every module's HTTP routes, background workers and context members, in one list each.
// app.ts registers the routes; server.ts starts the workers; both provide the members first.
// Adding a module = one line in each list.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext, ContextMember } from '../context.ts';
import type { WorkerFactory } from '../workers/index.ts';
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
import { draftScanWorker } from './items/draft-scan.ts';
import { itemRetryWorker } from './items/worker.ts';
import { provisioningRoutes } from './provisioning/routes.ts';
import { receiptRoutes } from './receipts/routes.ts';
import { salesRoutes } from './sales/routes.ts';
import { SALE_SIGNALS } from './sales/signals.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { webhookWorkers } from './webhooks/workers.ts';

export const moduleMembers: Array<ContextMember<unknown>> = [SALE_SIGNALS, CLASSIFICATION_CATALOGUE];

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
  catalogueRoutes,
  receiptRoutes,
  consoleRoutes,
  tillLoginRoutes,
  compatRoutes,
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
  backlogAlarmWorker,
];
