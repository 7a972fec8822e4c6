import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { catalogueDownload, catalogueEtag, listCodeClasses, listItemClassesPage } from './browse.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as S from './schemas.ts';
import { Type } from 'typebox';
import { requireTenant } from '../http-access/auth.ts';

const CATALOGUE_DOWNLOAD_PATH = '/docs/item-classes.csv.gz';
const CACHE_CONTROL = 'public, max-age=3600';

/** RFC 9110 If-None-Match: `*`, or a list of (possibly weak) entity tags compared weakly. */
function matchesIfNoneMatch(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (typeof header !== 'string') return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

export function catalogueRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/item-classes',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['catalogue_unavailable'] },
        schema: {
          operationId: 'listItemClasses',
          tags: ['Merchant: catalogue'],
          summary: "Your authority's item classification codes, by code",
          description:
            'The catalogue of the authority the merchant files with (`zra` or `kra`: each has its own). ' +
            `\`code\` matches the start of the code, \`name\` any part of the name. The whole catalogue is also a credential-free download: ${CATALOGUE_DOWNLOAD_PATH}?authority=….`,
          querystring: S.ListItemClassesQuery,
          response: { 200: Paginated(S.ItemClass) },
        },
      },
      async (request) => listItemClassesPage(ctx, requireTenant(request).authority, request.query),
    );

    app.get(
      '/api/v1/codes',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' } },
        schema: {
          operationId: 'listCodes',
          tags: ['Merchant: catalogue'],
          summary: "Your authority's code tables (payment types, units, countries, tax types, …)",
          description:
            'The code tables of the authority the merchant files with (`zra` or `kra`: each has its own), synced from one of its devices (selectCodes) ' +
            'with its classification catalogue, a few times a day; empty until the first sync after one of its devices is initialised. ' +
            "Each class with its codes in the authority's order; `class` narrows it to one. A tax type carries its `rate` where the authority publishes one (KRA).",
          querystring: S.ListCodesQuery,
          response: { 200: data(Type.Array(S.CodeClass)) },
        },
      },
      async (request) => ({ data: await listCodeClasses(ctx, requireTenant(request).authority, request.query) }),
    );

    // Untyped reply on purpose: the body is bytes, not a JSON schema the type provider could read.
    plugin.get<{ Querystring: S.DownloadItemClassesQuery }>(
      CATALOGUE_DOWNLOAD_PATH,
      {
        config: { auth: { surface: 'public' }, errors: ['catalogue_unavailable'] },
        schema: {
          operationId: 'downloadItemClasses',
          tags: ['Catalogue download'],
          summary: "An authority's whole classification catalogue as a gzip-compressed CSV (no credential)",
          description:
            'The catalogue of `authority` (`zra`, the default, or `kra`: each authority has its own). UTF-8 CSV with a header row `code,name,level,taxType,majorTarget,inUse` (Y/N flags), gzip-compressed and served as `application/gzip` ' +
            'with `Content-Disposition: attachment; filename="item-classes.csv.gz"`, so browsers and `curl -O` save the compressed file as is. ' +
            'Cached for an hour; the ETag changes when the catalogue does (If-None-Match → 304).',
          querystring: S.DownloadItemClassesQuery,
          response: {
            200: { description: 'item-classes.csv.gz', content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } },
            304: { description: 'Not modified: your copy is current', type: 'null' },
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', CACHE_CONTROL);
        const etag = await catalogueEtag(ctx, request.query.authority);
        if (matchesIfNoneMatch(request, etag)) return reply.code(304).header('etag', etag).send();
        const download = await catalogueDownload(ctx, request.query.authority);
        return reply
          .header('etag', download.etag)
          .header('content-type', 'application/gzip')
          .header('content-disposition', 'attachment; filename="item-classes.csv.gz"')
          .send(download.gzippedCsv);
      },
    );
  };
}
