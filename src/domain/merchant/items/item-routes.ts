import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, requireTenant } from '../../kernel/http-access/auth.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import * as S from './schemas.ts';
import { createItem, getItem, listItemsPage, releaseItem, updateItem } from './service.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { writeBranch } from '../../kernel/http-access/acts-on.ts';
import { setComposition } from './composition.ts';
import { READ, TAG, WRITE } from './route-parts.ts';

const STATES =
  '`registration.state`: `draft` (created by the gateway from a sale line naming an unknown product; never sent until released), ' +
  '`pending` (being sent, or the VSDC did not answer and the gateway retries), `registered` (the authority accepted it), ' +
  '`failed` (the authority refused it: `resultCode` and `message`; amend it to send it again), ' +
  '`amendment_pending` / `amendment_failed` (the same for a change to a registered item). See docs/items.md.';

/** The merchant's items: list, add, read, amend, release a draft, set a composition. */
export function itemRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/items',
      {
        config: READ,
        schema: {
          operationId: 'listItems',
          tags: TAG,
          summary: "The merchant's items, or the drafts waiting for review (?state=draft)",
          description: `Newest first. Without \`state\`, every item except drafts. ${STATES}`,
          querystring: S.ListItemsQuery,
          response: { 200: Paginated(S.Item) },
        },
      },
      async (request) => listItemsPage(ctx, requireTenant(request).id, request.query),
    );

    app.post(
      '/api/v1/items',
      {
        config: { auth: { ...WRITE.auth, branch: 'write' }, errors: ['item_code_conflict'] },
        schema: {
          operationId: 'createItem',
          tags: TAG,
          summary: 'Add an item and register it with the authority',
          description: `Registers it through the X-Branch (or default) branch, which must be initialised, and answers 201 with the state reached. ${STATES}`,
          headers: BranchHeaders,
          body: S.CreateItemBody,
          response: { 201: data(S.Item) },
        },
      },
      async (request, reply) => {
        const item = await createItem(ctx, requireTenant(request), await writeBranch(ctx, request), request.body, merchantActor(request));
        return reply.code(201).send({ data: item });
      },
    );

    app.get(
      '/api/v1/items/:item',
      {
        config: READ,
        schema: {
          operationId: 'getItem',
          tags: TAG,
          summary: 'One item, by id or by authority item code',
          params: S.ItemParam,
          response: { 200: data(S.Item) },
        },
      },
      async (request) => ({ data: await getItem(ctx, requireTenant(request).id, request.params.item) }),
    );

    app.patch(
      '/api/v1/items/:item',
      {
        config: WRITE,
        schema: {
          operationId: 'updateItem',
          tags: TAG,
          summary: 'Amend an item and tell the authority',
          description:
            'A registered item moves to `amendment_pending` and is sent with updateItem; an item the authority never accepted goes back to `pending` (saveItem). A draft is only amended locally, for review before release.',
          params: S.ItemParam,
          body: S.UpdateItemBody,
          response: { 200: data(S.Item) },
        },
      },
      async (request) => ({
        data: await updateItem(ctx, requireTenant(request), request.params.item, request.body, merchantActor(request)),
      }),
    );

    app.post(
      '/api/v1/items/:item/release',
      {
        config: { auth: { ...WRITE.auth, branch: 'write' }, errors: ['item_not_draft'] },
        schema: {
          operationId: 'releaseItem',
          tags: TAG,
          summary: 'Release a reviewed draft to the authority',
          description:
            'No request body. Sends the draft through the X-Branch (or default) branch and answers with the state reached. 409 `item_not_draft` for an item that is not a draft.',
          headers: BranchHeaders,
          params: S.ItemParam,
          response: { 200: data(S.Item) },
        },
      },
      async (request) => ({
        data: await releaseItem(ctx, requireTenant(request), request.params.item, () => writeBranch(ctx, request), merchantActor(request)),
      }),
    );

    app.post(
      '/api/v1/items/:item/composition',
      {
        config: { ...WRITE, errors: ['item_is_draft'] },
        schema: {
          operationId: 'setItemComposition',
          tags: TAG,
          summary: 'Say which items this one is made of, and file it with the authority',
          description:
            'The whole composition: it replaces any earlier one (a component left out is dropped; one registered with the same quantity is not sent again). ' +
            "Each component is one of the merchant's own items, registered with the authority through the same branch as this item, named once, never this item itself; " +
            "each is filed with saveItemComposition through the item's branch, in the order given, and answered with the state reached (`composition`). " +
            'An item not yet registered keeps its components `pending` until it is; the VSDC not answering leaves them `pending`, retried in the background. ' +
            '422 naming `components.N.itemCode` or `components.N.quantity`; 409 `item_is_draft` for a draft. See docs/items.md.',
          params: S.ItemParam,
          body: S.SetCompositionBody,
          response: { 200: data(S.Item) },
        },
      },
      async (request) => ({
        data: await setComposition(ctx, requireTenant(request).id, request.params.item, request.body, merchantActor(request)),
      }),
    );
  };
}
