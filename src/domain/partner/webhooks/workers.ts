import type { AppContext } from '../../kernel/context.ts';
import type { WorkerFactory } from '../../../platform/workers/index.ts';
import { createDeliveryWorker } from './delivery-worker.ts';
import { createRetentionWorker } from './retention-worker.ts';

/** The webhooks module's background workers, as `moduleWorkers` starts them. */
export const webhookWorkers: Array<WorkerFactory<AppContext>> = [(ctx) => createDeliveryWorker(ctx), (ctx) => createRetentionWorker(ctx)];
