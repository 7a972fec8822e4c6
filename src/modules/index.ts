// Every module's HTTP routes and background workers, in one list. app.ts registers the
// routes; server.ts starts the workers. Adding a module = one line in each list.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';
import type { WorkerFactory } from '../workers/index.ts';
import { provisioningRoutes } from './provisioning/routes.ts';

export const moduleRoutes: Array<(ctx: AppContext) => FastifyPluginAsync> = [
  provisioningRoutes,
];

export const moduleWorkers: WorkerFactory[] = [];
