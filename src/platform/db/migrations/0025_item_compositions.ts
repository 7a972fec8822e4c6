// Item compositions (saveItemComposition). An item made of other items: one
// row per component, filed on its own with the authority (`{itemCd, cpstItemCd, cpstQty}`)
// through the composite item's branch, and retried like item registrations (the retry columns
// and the lease of `items`). A component waits (`pending`, not due) until the composite item
// is registered. A new composition replaces the rows; `revision` tells an answer about an older
// quantity from one about the current one.
export const up = [
  `create table item_compositions (
     id bigint generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     item_id bigint not null references items(id),
     component_item_id bigint not null references items(id),
     position integer not null,
     quantity numeric(18, 4) not null check (quantity > 0),
     state text not null check (state in ('pending', 'registered', 'failed')),
     result_code text,
     result_message text,
     revision integer not null default 1,
     registered_at timestamptz,
     retry_attempts integer not null default 0,
     next_attempt_at timestamptz,
     lease_until timestamptz,
     last_unreachable text,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     unique (item_id, component_item_id),
     check (item_id <> component_item_id)
   )`,
  `create index item_compositions_due on item_compositions (next_attempt_at) where state = 'pending'`,
  `create index item_compositions_component on item_compositions (component_item_id)`,
];
