// The classification catalogue as merchants see it: paged search, and the credential-free bulk
// download (gzip-compressed CSV) with an ETag that changes exactly when a sync stores something.
import type { AppContext } from '../context.ts';
import type { Database } from '../../../platform/db/database.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { allItemClasses, catalogueVersion, searchItemClasses } from './browse-store.ts';
import { catalogueCsvGz } from './csv.ts';
import { presentItemClass } from './present.ts';
import type { CodeClassResource, ItemClassResource, ListCodesQuery, ListItemClassesQuery } from './schemas.ts';
import { listCodes } from './store.ts';
import { classificationCatalogue } from './service.ts';

/** Fetches the catalogue first if it never was; 503 `catalogue_unavailable` when no VSDC can give it. */
async function ensureFetched(ctx: AppContext): Promise<void> {
  await classificationCatalogue(ctx).unknownCodes([]);
}

export async function listItemClassesPage(ctx: AppContext, query: ListItemClassesQuery): Promise<Page<ItemClassResource>> {
  await ensureFetched(ctx);
  const { rows, total } = await searchItemClasses(ctx.db, { codePrefix: query.code, name: query.name?.trim() || undefined }, query.page);
  return pageOf(rows.map(presentItemClass), total, query.page);
}

interface CatalogueDownload {
  etag: string;
  gzippedCsv: Buffer;
}

const etagOf = (entries: number, lastStoredAt: Date | null) => `"item-classes-${entries}-${lastStoredAt?.getTime() ?? 0}"`;

/** The current ETag, without building the file (enough to answer a conditional request). */
export async function catalogueEtag(ctx: AppContext): Promise<string> {
  await ensureFetched(ctx);
  const version = await catalogueVersion(ctx.db);
  return etagOf(version.entries, version.lastStoredAt);
}

const built = new WeakMap<Database, CatalogueDownload>();

export async function catalogueDownload(ctx: AppContext): Promise<CatalogueDownload> {
  const etag = await catalogueEtag(ctx);
  const cached = built.get(ctx.database);
  if (cached?.etag === etag) return cached;
  const rows = await allItemClasses(ctx.db);
  const lastStoredAt = rows.reduce<Date | null>((latest, r) => (latest === null || r.synced_at > latest ? r.synced_at : latest), null);
  // Named after the rows actually read, so a sync landing meanwhile is never mislabelled.
  const download = { etag: etagOf(rows.length, lastStoredAt), gzippedCsv: catalogueCsvGz(rows) };
  built.set(ctx.database, download);
  return download;
}

/** The authority's code tables as synced, grouped by class (empty until the first sync). */
export async function listCodeClasses(ctx: AppContext, query: ListCodesQuery): Promise<CodeClassResource[]> {
  const classes = new Map<string, CodeClassResource>();
  for (const row of await listCodes(ctx.db, query.class)) {
    let entry = classes.get(row.classCode);
    if (!entry) classes.set(row.classCode, (entry = { classCode: row.classCode, className: row.className, codes: [] }));
    entry.codes.push({ code: row.code, name: row.name, description: row.description, inUse: row.inUse });
  }
  return [...classes.values()];
}
