import type { AppContext } from '../context.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { classificationCatalogue } from './service.ts';

/**
 * The codes among `codes` that the catalogue of `authority` (`tenants.authority`) does not hold. When the catalogue has
 * never been fetched and no VSDC answers now, none: the record is kept and the VSDC checks the
 * code itself when it is sent (a refusal then shows on the record, with the authority's text).
 */
export async function unknownClassificationCodes(ctx: AppContext, authority: string, codes: Iterable<string>): Promise<string[]> {
  try {
    return await classificationCatalogue(ctx).unknownCodes(authority, codes);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'catalogue_unavailable') return [];
    throw err;
  }
}
