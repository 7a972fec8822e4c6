import type { ItemClassRow } from './browse-store.ts';
import type { ItemClassResource } from './schemas.ts';

export function presentItemClass(row: ItemClassRow): ItemClassResource {
  return { code: row.code, name: row.name, level: row.level, taxType: row.tax_type, majorTarget: row.major_target, inUse: row.in_use };
}
