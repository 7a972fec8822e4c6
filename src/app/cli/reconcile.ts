// `fiscal-gateway reconcile`: starts a branch's reconciliation (or continues the one it has open)
// and drives it to its end in this process, printing progress and the summary.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { AppContext } from '../../domain/kernel/context.ts';
import { ApiError, ValidationError } from '../../platform/errors/errors.ts';
import type { ReconciliationResource } from '../../domain/fiscal/reconciliation/present.ts';
import { createRun, runToCompletion } from '../../domain/fiscal/reconciliation/service.ts';
import { clearRunLeases, openRunOfDevice } from '../../domain/fiscal/reconciliation/store.ts';
import { presentRun } from '../../domain/fiscal/reconciliation/present.ts';
import { SALE_SIGNALS } from '../../domain/fiscal/signals/sale-signals.ts';
import { FILING_OUTCOMES } from '../../domain/fiscal/filing/outcome-store.ts';
import { UsageError, print } from './output.ts';

function progressLine(run: ReconciliationResource): string {
  const p = run.progress;
  return `run ${run.id} ${run.status}: checked ${p.checked}/${p.total} · ${p.matches} match · ${p.mismatches} mismatch · ${p.unknown} unknown · ${p.adopted} adopted · ${p.notFiled} not filed${run.lastError ? ` · waiting: ${run.lastError}` : ''}`;
}

export async function reconcileCommand(
  args: string[],
  json: boolean,
  withContext: <T>(command: string, run: (ctx: AppContext) => Promise<T>) => Promise<T>,
): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { tenant: { type: 'string' }, branch: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
  });
  if (!values.tenant || !/^\d+$/.test(values.tenant) || Number(values.tenant) < 1) throw new UsageError('reconcile needs --tenant <id>');
  if (!values.from || !values.to) throw new UsageError('reconcile needs --from YYYY-MM-DD and --to YYYY-MM-DD');
  const tenantId = Number(values.tenant);
  const body = { branch: values.branch ?? '000', from: values.from, to: values.to };
  if (!/^[0-9A-Za-z]{3}$/.test(body.branch)) throw new UsageError('--branch takes a 3-character branch id, e.g. 000');

  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  try {
    const final = await withContext('reconcile', async (ctx) => {
      ctx.members.provide(ctx, SALE_SIGNALS);
      ctx.members.provide(ctx, FILING_OUTCOMES); // an adopted document's outcome
      // The embedded database has one process, this one: a lease found now was left by a crash.
      if (ctx.database.kind === 'embedded') await clearRunLeases(ctx.db);
      const tenant = await ctx.db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
      if (!tenant) throw new UsageError(`no merchant ${tenantId}`);
      let run: ReconciliationResource;
      try {
        run = await createRun(ctx, tenantId, body, 'cli', { type: 'cli' });
      } catch (err) {
        if (err instanceof ValidationError) throw new UsageError(Object.values(err.errors).flat().join(' '));
        if (!(err instanceof ApiError && err.code === 'reconciliation_in_progress')) throw err;
        const device = await ctx.db
          .selectFrom('devices')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('branch', '=', body.branch)
          .executeTakeFirstOrThrow();
        const open = await openRunOfDevice(ctx.db, device.id);
        if (!open) throw err;
        run = presentRun(open);
        if (!json) process.stdout.write(`branch ${body.branch} has run ${run.id} open (${run.from} to ${run.to}): continuing it\n`);
      }
      if (!json) process.stdout.write(`${progressLine(run)}\n`);
      let last = '';
      return runToCompletion(ctx, run.id, `cli-${randomBytes(6).toString('hex')}`, stop.signal, (now) => {
        const line = progressLine(now);
        if (!json && line !== last) process.stdout.write(`${line}\n`);
        last = line;
      });
    });
    const summary = final.status === 'completed' ? 'done' : 'interrupted; the workers of a running gateway carry it on';
    print(
      json,
      final,
      `${summary}: ${final.progress.matches} match, ${final.progress.mismatches} mismatch, ${final.progress.unknown} unknown to the VSDC, ${final.progress.adopted} adopted, ${final.progress.notFiled} not filed`,
    );
  } finally {
    process.removeListener('SIGINT', interrupt);
  }
}
