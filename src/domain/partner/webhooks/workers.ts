import type { WorkerFactory } from '../../../platform/workers/index.ts';
import { createDeliveryWorker } from './delivery-worker.ts';
import { createRetentionWorker } from './retention-worker.ts';

/** The webhooks module's background workers, as `moduleWorkers` starts them. */
export const webhookWorkers: WorkerFactory[] = [(ctx) => createDeliveryWorker(ctx), (ctx) => createRetentionWorker(ctx)];
