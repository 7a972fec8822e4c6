// The seam between the domain and the authorities: what every authority's adapter offers, in the
// domain's words. The domain imports this folder and the registry (../index.ts), never an
// authority's own folder (.dependency-cruiser.cjs).
import type { ComputedSale, SaleLineInput } from './amounts.ts';
import type { DevicePort } from './device.ts';
import type { FeedsPort } from './feeds.ts';
import type { FilingPort } from './filing.ts';
import type { AuthorityProfile } from './profile.ts';
import type { PurchasesPort } from './purchases.ts';
import type { StockPort } from './stock.ts';
import type { CataloguePort } from './catalogue.ts';
import type { ItemsPort } from './items.ts';
import type { CustomersPort } from './customers.ts';
import type { BranchUsersPort } from './branch-users.ts';
import type { RegisterPort } from './register.ts';

export type * from './amounts.ts';
export type * from './device.ts';
export type * from './feeds.ts';
export type * from './filing.ts';
export type * from './outcomes.ts';
export type * from './profile.ts';
export type * from './purchases.ts';
export type * from './stock.ts';
export type * from './catalogue.ts';
export type * from './items.ts';
export type * from './customers.ts';
export type * from './branch-users.ts';
export type * from './register.ts';

/** The authority's arithmetic of a document's lines and totals. */
export interface ArithmeticPort {
  /**
   * Every line's amounts and the totals; throws SaleAmountsError (amounts.ts) for lines it cannot
   * compute. `rates`: each category's rate in percent as the authority's code table now publishes
   * it (`AuthorityCode.rate`); absent, or for an authority that ignores it: the profile's.
   */
  computeSale(lines: readonly SaleLineInput[], taxInclusive: boolean, rates?: Readonly<Record<string, number>>): ComputedSale;
  /** A line's gross, quantity × price, rounded as the authority rounds it. */
  lineGross(quantity: number | string, price: number | string): number;
}

/** One authority profile's adapter: stateless; the domain owns numbers, queues and guarantees. */
export interface FiscalAuthority {
  readonly profile: AuthorityProfile;
  readonly arithmetic: ArithmeticPort;
  readonly device: DevicePort;
  readonly filing: FilingPort;
  readonly stock: StockPort;
  readonly catalogue: CataloguePort;
  readonly items: ItemsPort;
  readonly customers: CustomersPort;
  readonly branchUsers: BranchUsersPort;
  readonly register: RegisterPort;

  readonly feeds: FeedsPort;
  readonly purchases: PurchasesPort;
}
