// The authority's catalogue as the domain keeps it: the classification of items a sale line names,
// and the code tables (units, countries, reasons, …) the authority publishes, each read since a
// cursor the adapter gave before.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Pulled } from './outcomes.ts';

/** An item classification (the code a sale line and an item carry). */
export interface ItemClassification {
  code: string;
  name: string;
  level: number | null;
  /** The authority's tax type of the classification, as published. */
  taxType: string | null;
  majorTarget: boolean | null;
  inUse: boolean;
}

/** One code of one of the authority's code tables. */
export interface AuthorityCode {
  classCode: string;
  className: string;
  code: string;
  name: string;
  description: string | null;
  inUse: boolean;
  sortOrder: number | null;
  /** A tax type's rate in percent, where the table publishes one (KRA: class 04, `userDfnCd1`). */
  rate?: number | null;
}

/**
 * Reads what changed since `cursor` (a cursor an earlier read returned; null: everything). The
 * catalogue is the authority's, the same through any of its devices.
 */
export interface CataloguePort {
  classifications(device: AuthorityDevice, cursor: string | null, options?: CallOptions): Promise<Pulled<ItemClassification>>;
  codes(device: AuthorityDevice, cursor: string | null, options?: CallOptions): Promise<Pulled<AuthorityCode>>;
}
