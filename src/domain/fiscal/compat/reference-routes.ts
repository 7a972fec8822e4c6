import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { Type } from 'typebox';
import { unauthenticated } from '../../../platform/errors/errors.ts';
import * as S from './schemas.ts';
import { branchesOfKey } from './store.ts';
import { toLegacyBranch } from './translate.ts';
import { TAG, WITH_BRANCH, described } from './route-parts.ts';

/** The branches a key may file through and the VAT categories. Registered inside compatRoutes, under its envelope. */
export function referenceRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/zm/api/Branches',
      {
        config: { auth: { surface: 'compat', branch: 'none' } },
        schema: {
          operationId: 'legacyListBranches',
          tags: TAG,
          summary: 'The branches this key may file through',
          description: described(
            'Needs only X-Api-Key. A branch key lists its own branch; a tenant key every branch of the merchant (one with `Initialized: false` cannot file yet).',
          ),
          response: { 200: Type.Array(S.LegacyBranch) },
        },
      },
      async (request) => {
        const principal = request.principal;
        if (principal?.kind !== 'fiscalisation_key') throw unauthenticated('Send X-Api-Key: <pk_…>.');
        const branches = await branchesOfKey(ctx.db, { tenantId: principal.tenant.id, deviceId: principal.key.deviceId });
        return branches.map(toLegacyBranch);
      },
    );

    app.get(
      '/zm/api/TaxCodes',
      {
        config: WITH_BRANCH,
        schema: {
          operationId: 'legacyListTaxCodes',
          tags: TAG,
          summary: 'VAT categories and their rates',
          description: described(
            "Every VAT category the gateway knows; `Code` is what `Items[].VATCategoryCode` takes (or `invoiceItems[].TaxCodes`, in the product's names).",
          ),
          headers: S.CompatHeaders,
          response: { 200: Type.Array(S.LegacyTaxCode) },
        },
      },
      async () => S.ZAMBIA.taxCategories.map((c) => ({ Code: c.code, Name: c.name, Rate: c.rate })),
    );
  };
}
