import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../domain/kernel/context.ts';
import { recordAudit } from '../domain/kernel/audit/store.ts';

/** The response header naming the process that took the copy: `fiscal-gateway backup` checks it is the lock's holder. */
export const BACKUP_PID_HEADER = 'fiscal-gateway-pid';

/**
 * `POST /admin/v1/backup`: the embedded database, copied while it runs (docs/deployment.md,
 * "Backup"), answered as a gzipped tarball. What `fiscal-gateway backup` calls when a server holds
 * the data directory. Registered only with ADMIN_TOKEN set and on the embedded database (on
 * PostgreSQL the operator uses pg_dump). Hidden from the OpenAPI document, like /metrics: it is
 * an operator's tool, not part of the interface.
 */
export function registerBackupRoute(app: FastifyInstance, ctx: AppContext): void {
  const backup = ctx.database.backup;
  if (!ctx.config.adminToken || !backup) return;
  app.post(
    '/admin/v1/backup',
    { schema: { hide: true }, config: { auth: { surface: 'admin' }, whileStorageLow: 'served' } },
    async (_request, reply) => {
      const started = Date.now();
      const tarball = await backup();
      const ms = Date.now() - started;
      ctx.log.info({ bytes: tarball.size, ms }, 'database backed up');
      await recordAudit(ctx.db, { actor: { type: 'admin' }, action: 'database.backed_up', details: { bytes: tarball.size, ms } });
      reply
        .header('content-type', 'application/gzip')
        .header('content-disposition', 'attachment; filename="fiscal-gateway-backup.tar.gz"')
        .header('cache-control', 'no-store')
        .header('content-length', String(tarball.size))
        .header(BACKUP_PID_HEADER, String(process.pid));
      return reply.send(Readable.fromWeb(tarball.stream() as ReadableStream<Uint8Array>));
    },
  );
}
