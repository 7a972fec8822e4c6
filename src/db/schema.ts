// The database as Kysely sees it: one interface per module's tables, composed here.
import type { FoundationTables } from './tables/foundation.ts';

export interface DB extends FoundationTables {}
