// The merchant's items registered with the authority through a branch's device: registration and
// amendment, compositions, and the items the authority holds for the branch.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Rejected, Sent, Unreachable } from './outcomes.ts';

/** An item as registered; codes are the authority's (checked against its catalogue and profile by the domain). */
export interface AuthorityItem {
  code: string;
  classificationCode: string;
  /** The authority's item type (ZRA: `1` raw material, `2` finished product, `3` service). */
  typeCode: string;
  name: string;
  /** ISO 3166 alpha-2. */
  originCountryCode: string;
  packagingUnitCode: string;
  quantityUnitCode: string;
  vatCategory: string;
  barcode: string | null;
  defaultPrice: number;
  /** False withdraws the item from use. */
  active: boolean;
}

/** One component of a composite item: how much of `componentCode` goes into one unit of `itemCode`. */
interface ItemComponentEntry {
  itemCode: string;
  componentCode: string;
  quantity: number;
}

/** An item the authority lists for a branch, read leniently: a field it did not send is empty text (0 for the price). */
export type ListedItem = Omit<AuthorityItem, 'originCountryCode' | 'barcode'>;

type ItemsListed = { kind: 'ok'; items: ListedItem[] } | Rejected | Unreachable;

export interface ItemsPort {
  /** A new item (never accepted by the authority before). */
  register(device: AuthorityDevice, item: AuthorityItem, options?: CallOptions): Promise<Sent>;
  /** An item the authority accepted before, with its fields now. */
  amend(device: AuthorityDevice, item: AuthorityItem, options?: CallOptions): Promise<Sent>;
  registerComponent(device: AuthorityDevice, component: ItemComponentEntry, options?: CallOptions): Promise<Sent>;
  /** Every item the authority holds for the device's branch. */
  list(device: AuthorityDevice, options?: CallOptions): Promise<ItemsListed>;
}
