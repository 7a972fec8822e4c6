// Each authority's classification catalogue and code tables (`tenants.authority`): synced from one
// of its devices into the database, and kept in memory per process and authority for the check
// every sale line goes through.
import type { AuthorityDevice } from '../../../authorities/port/index.ts';
import type { AppContext, ContextMember } from '../context.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import {
  claimSync,
  codesInUse,
  publishedRates,
  recordSyncFailure,
  saveCodes,
  saveSync,
  syncableAuthorities,
  syncDevices,
  type ItemClassRecord,
} from './store.ts';

const SYNC_LEASE_MS = 120_000;

type CatalogueSyncResult =
  | { kind: 'synced'; received: number }
  | { kind: 'unchanged' }
  | { kind: 'busy' }
  | { kind: 'no_device' }
  | { kind: 'failed'; reason: string };

/**
 * The code tables from the device that just answered for the catalogue: what changed since their
 * last sync. A failure here leaves the catalogue's sync standing; the next sync asks again.
 */
async function syncCodes(ctx: AppContext, authority: string, device: AuthorityDevice, cursor: string | null): Promise<void> {
  const outcome = await ctx.authorities.of(device.profile).catalogue.codes(device, cursor);
  if (outcome.kind === 'ok') {
    await saveCodes(ctx.db, authority, outcome.records, outcome.cursor);
  } else if (outcome.kind === 'empty') {
    await saveCodes(ctx.db, authority, [], outcome.cursor);
  } else {
    ctx.log.warn(
      {
        authority,
        vsdc: device.baseUrl,
        outcome: outcome.kind === 'rejected' ? `${outcome.code} ${outcome.message}` : `${outcome.reason} ${outcome.detail}`,
      },
      'code tables not synced',
    );
  }
}

/**
 * Fetches what changed in the authority's catalogue since its last sync (everything when it holds
 * nothing) from the first of its initialised devices that answers, and stores it, then its code
 * tables from the same device. One process at a time per authority.
 */
async function syncAuthority(ctx: AppContext, authority: string): Promise<CatalogueSyncResult> {
  const claim = await claimSync(ctx.db, authority, SYNC_LEASE_MS);
  if (!claim) return { kind: 'busy' };
  const devices = await syncDevices(ctx.db, ctx.secretBox, authority);
  if (devices.length === 0) {
    await recordSyncFailure(ctx.db, authority, 'no initialised device to ask');
    return { kind: 'no_device' };
  }
  const cursor = claim.empty ? null : claim.lastReqDt;
  const codesCursor = claim.codesEmpty ? null : claim.codesLastReqDt;
  const problems: string[] = [];
  for (const device of devices) {
    const outcome = await ctx.authorities.of(device.profile).catalogue.classifications(device, cursor);
    switch (outcome.kind) {
      case 'ok': {
        const byCode = new Map<string, ItemClassRecord>();
        for (const record of outcome.records) byCode.set(record.code, record);
        await syncCodes(ctx, authority, device, codesCursor);
        await saveSync(ctx.db, authority, [...byCode.values()], outcome.cursor);
        return { kind: 'synced', received: byCode.size };
      }
      case 'empty':
        await syncCodes(ctx, authority, device, codesCursor);
        await saveSync(ctx.db, authority, [], outcome.cursor);
        return { kind: 'unchanged' };
      case 'rejected':
        problems.push(`${device.baseUrl}: ${outcome.code} ${outcome.message}`);
        break;
      case 'unreachable':
        problems.push(`${device.baseUrl}: ${outcome.reason} ${outcome.detail}`);
        break;
    }
  }
  const reason = problems.join('; ');
  await recordSyncFailure(ctx.db, authority, reason);
  return { kind: 'failed', reason };
}

/**
 * Syncs one authority's catalogue and code tables (`tenants.authority`), or, without one, each
 * authority that has an initialised device (the worker): then the result is the most pressing of
 * theirs (`synced` counts every authority's entries), `no_device` when none has a device.
 */
export async function syncCatalogue(ctx: AppContext, authority?: string): Promise<CatalogueSyncResult> {
  if (authority !== undefined) return syncAuthority(ctx, authority);
  const results: CatalogueSyncResult[] = [];
  for (const each of await syncableAuthorities(ctx.db)) results.push(await syncAuthority(ctx, each));
  if (results.length === 0) return { kind: 'no_device' };
  const failures = results.flatMap((r) => (r.kind === 'failed' ? [r.reason] : []));
  if (failures.length > 0) return { kind: 'failed', reason: failures.join('; ') };
  if (results.some((r) => r.kind === 'no_device')) return { kind: 'no_device' };
  const received = results.reduce((sum, r) => sum + (r.kind === 'synced' ? r.received : 0), 0);
  if (results.some((r) => r.kind === 'synced')) return { kind: 'synced', received };
  return results.some((r) => r.kind === 'unchanged') ? { kind: 'unchanged' } : { kind: 'busy' };
}

const CACHE_TTL_MS = 60_000;
const RELOAD_ON_MISS_MS = 5_000;
const EMPTY_WAIT_MS = 5_000;
/**
 * After a first fetch failed, a request that can do without the catalogue (a sale, accepted and
 * checked before it is filed) does not try (nor wait) again for this long; the worker keeps trying.
 */
const EMPTY_RETRY_MS = 30_000;

/** The in-process copy of one authority's catalogue codes (and its published tax rates). */
class AuthorityCatalogue {
  private codes: ReadonlySet<string> = new Set();
  /** The tax rates its code tables publish, by tax type; empty until they are synced. */
  rates: Readonly<Record<string, number>> = {};
  private loadedAt = 0;
  private loading: Promise<void> | undefined;
  private syncing: Promise<void> | undefined;
  /** Until when a failed first fetch is not tried again by requests (Date.now() ms). */
  private unfetchedUntil = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly authority: string,
  ) {}

  private reload(): Promise<void> {
    this.loading ??= Promise.all([codesInUse(this.ctx.db, this.authority), publishedRates(this.ctx.db, this.authority)])
      .then(([codes, rates]) => {
        this.codes = new Set(codes);
        this.rates = rates;
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** First use on an empty catalogue: fetch it now (or wait for the process that is). */
  private fillEmpty(canDoWithout: boolean): Promise<void> {
    if (canDoWithout && Date.now() < this.unfetchedUntil) return Promise.resolve();
    this.syncing ??= (async () => {
      const deadline = Date.now() + EMPTY_WAIT_MS;
      for (;;) {
        const result = await syncCatalogue(this.ctx, this.authority);
        await this.reload();
        if (this.codes.size > 0) return;
        if (result.kind !== 'busy' || Date.now() > deadline) {
          this.unfetchedUntil = Date.now() + EMPTY_RETRY_MS;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /**
   * The codes among `codes` that are not in the authority's catalogue. Throws 503 when the
   * catalogue has never been fetched and no VSDC can provide it now.
   */
  async unknownCodes(codes: Iterable<string>): Promise<string[]> {
    const unknown = await this.uncheckedOrUnknown(codes, { fill: 'always' });
    if (unknown === null) {
      throw new ApiError(
        'catalogue_unavailable',
        `The classification catalogue of the authority ${this.authority} has not been fetched yet and none of its devices answers now; nothing was stored. Retry shortly.`,
        { 'retry-after': '30' },
      );
    }
    return unknown;
  }

  /**
   * The codes among `codes` that are not in the catalogue, or null when it cannot say: the
   * catalogue was never fetched, and fetching it now failed too. `fill`: on an empty catalogue,
   * fetch it now (`always`), unless a fetch failed in the last EMPTY_RETRY_MS (`unless-failed`,
   * for a caller that can do without), or never (`never`: the filer, whose VSDC judges the codes).
   */
  async uncheckedOrUnknown(codes: Iterable<string>, options: { fill: 'always' | 'unless-failed' | 'never' }): Promise<string[] | null> {
    // An empty copy is read again sooner: another process may have fetched the catalogue since.
    const age = Date.now() - this.loadedAt;
    if (age > CACHE_TTL_MS || (this.codes.size === 0 && age > RELOAD_ON_MISS_MS)) await this.reload();
    if (this.codes.size === 0 && options.fill !== 'never') await this.fillEmpty(options.fill === 'unless-failed');
    if (this.codes.size === 0) return null;
    let unknown = [...new Set(codes)].filter((code) => !this.codes.has(code));
    if (unknown.length > 0 && Date.now() - this.loadedAt > RELOAD_ON_MISS_MS) {
      // Another process may have synced newer codes since this copy was read.
      await this.reload();
      unknown = unknown.filter((code) => !this.codes.has(code));
    }
    return unknown;
  }

  /** Forget the in-memory copy (after a sync in this process). */
  invalidate(): void {
    this.loadedAt = 0;
  }
}

/** The in-process copies of every authority's catalogue, shared by every request on one context. */
class ClassificationCatalogue {
  private readonly copies = new Map<string, AuthorityCatalogue>();

  constructor(private readonly ctx: AppContext) {}

  private of(authority: string): AuthorityCatalogue {
    let copy = this.copies.get(authority);
    if (!copy) this.copies.set(authority, (copy = new AuthorityCatalogue(this.ctx, authority)));
    return copy;
  }

  /** See AuthorityCatalogue.unknownCodes: of the catalogue of `authority` (`tenants.authority`). */
  unknownCodes(authority: string, codes: Iterable<string>): Promise<string[]> {
    return this.of(authority).unknownCodes(codes);
  }

  /** See AuthorityCatalogue.uncheckedOrUnknown: of the catalogue of `authority`. */
  uncheckedOrUnknown(
    authority: string,
    codes: Iterable<string>,
    options: { fill: 'always' | 'unless-failed' | 'never' },
  ): Promise<string[] | null> {
    return this.of(authority).uncheckedOrUnknown(codes, options);
  }

  /**
   * The tax rates the authority's code tables published when its copy was last read (by the
   * classification check of an earlier request); empty before that: the profile's rates apply.
   */
  ratesOf(authority: string): Readonly<Record<string, number>> {
    return this.of(authority).rates;
  }

  /** Forget one authority's copy, or every one's (after a sync in this process). */
  invalidate(authority?: string): void {
    if (authority !== undefined) this.of(authority).invalidate();
    else for (const copy of this.copies.values()) copy.invalidate();
  }
}

/** The context's copy, built by `provideModuleMembers`. */
export const CLASSIFICATION_CATALOGUE: ContextMember<ClassificationCatalogue> = {
  name: 'catalogue.classification',
  create: (ctx) => new ClassificationCatalogue(ctx),
};

export function classificationCatalogue(ctx: AppContext): ClassificationCatalogue {
  return ctx.members.get(CLASSIFICATION_CATALOGUE);
}
