// An authority's classification catalogue as merchants see it (their own authority's): paged
// search, and the credential-free bulk download (gzip-compressed CSV, `?authority=`) with an ETag
// that changes exactly when a sync stores something in it.
import type { AppContext } from '../context.ts';
import type { Database } from '../../../platform/db/database.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { allItemClasses, catalogueVersion, searchItemClasses } from './browse-store.ts';
import { catalogueCsvGz } from './csv.ts';
import { presentItemClass } from './present.ts';
import type { CodeClassResource, ItemClassResource, ListCodesQuery, ListItemClassesQuery } from './schemas.ts';
import { listCodes } from './store.ts';
import { classificationCatalogue } from './service.ts';

/** Fetches the authority's catalogue first if it never was; 503 `catalogue_unavailable` when no VSDC can give it. */
async function ensureFetched(ctx: AppContext, authority: string): Promise<void> {
  await classificationCatalogue(ctx).unknownCodes(authority, []);
}

export async function listItemClassesPage(
  ctx: AppContext,
  authority: string,
  query: ListItemClassesQuery,
): Promise<Page<ItemClassResource>> {
  await ensureFetched(ctx, authority);
  const { rows, total } = await searchItemClasses(
    ctx.db,
    authority,
    { codePrefix: query.code, name: query.name?.trim() || undefined },
    query.page,
  );
  return pageOf(rows.map(presentItemClass), total, query.page);
}

interface CatalogueDownload {
  etag: string;
  gzippedCsv: Buffer;
}

const etagOf = (authority: string, entries: number, lastStoredAt: Date | null) =>
  `"item-classes-${authority}-${entries}-${lastStoredAt?.getTime() ?? 0}"`;

/** The authority's current ETag, without building the file (enough to answer a conditional request). */
export async function catalogueEtag(ctx: AppContext, authority: string): Promise<string> {
  await ensureFetched(ctx, authority);
  const version = await catalogueVersion(ctx.db, authority);
  return etagOf(authority, version.entries, version.lastStoredAt);
}

/** The last file built, per database and authority. */
const built = new WeakMap<Database, Map<string, CatalogueDownload>>();

export async function catalogueDownload(ctx: AppContext, authority: string): Promise<CatalogueDownload> {
  const etag = await catalogueEtag(ctx, authority);
  let files = built.get(ctx.database);
  if (!files) built.set(ctx.database, (files = new Map()));
  const cached = files.get(authority);
  if (cached?.etag === etag) return cached;
  const rows = await allItemClasses(ctx.db, authority);
  const lastStoredAt = rows.reduce<Date | null>((latest, r) => (latest === null || r.synced_at > latest ? r.synced_at : latest), null);
  // Named after the rows actually read, so a sync landing meanwhile is never mislabelled.
  const download = { etag: etagOf(authority, rows.length, lastStoredAt), gzippedCsv: catalogueCsvGz(rows) };
  files.set(authority, download);
  return download;
}

/** The authority's code tables as synced, grouped by class (empty until the first sync). */
export async function listCodeClasses(ctx: AppContext, authority: string, query: ListCodesQuery): Promise<CodeClassResource[]> {
  const classes = new Map<string, CodeClassResource>();
  for (const row of await listCodes(ctx.db, authority, query.class)) {
    let entry = classes.get(row.classCode);
    if (!entry) classes.set(row.classCode, (entry = { classCode: row.classCode, className: row.className, codes: [] }));
    entry.codes.push({ code: row.code, name: row.name, description: row.description, inUse: row.inUse, rate: row.rate ?? null });
  }
  return [...classes.values()];
}
