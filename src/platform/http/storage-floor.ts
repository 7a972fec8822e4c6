import type { FastifyInstance } from 'fastify';
import type { StorageFloor } from '../db/storage-floor.ts';
import { ApiError } from '../errors/errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `served`: a write the route makes is still taken while the embedded database's disk is below
     * its floor (sign-in and sign-out, which reading through the console needs; the backup, which
     * is what an operator takes before freeing space). Their few bytes come out of the floor.
     */
    whileStorageLow?: 'served';
  }
}

/** The methods that write: refused below the floor (and so answer `storage_full`, route-errors.ts). */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a refused client is told to wait before repeating the request. */
const RETRY_AFTER_SECONDS = '30';

/**
 * While the embedded database's disk has less free space than DATA_DIR_MIN_FREE_MB
 * (db/storage-floor.ts), every write request is answered 507 `storage_full` before its handler
 * runs, so nothing is stored and no invoice number is taken; reads go on. Registered after the
 * auth hook: a caller without a credential is still told so first.
 */
export function registerStorageFloor(app: FastifyInstance, floor: StorageFloor | undefined): void {
  if (!floor) return;
  app.addHook('onRequest', async (request) => {
    if (!floor.refusing || !WRITE_METHODS.has(request.method)) return;
    if (request.routeOptions.url === undefined || request.routeOptions.config.whileStorageLow === 'served') return;
    throw storageFull(floor.refusal());
  });
}

export function storageFull(message: string): ApiError {
  return new ApiError('storage_full', message, { 'Retry-After': RETRY_AFTER_SECONDS });
}
