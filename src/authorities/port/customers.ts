// Customers with a taxpayer id: what the authority's register says about one, and the customer
// registered on a branch's list.
import type { AuthorityDevice, CallOptions } from './device.ts';
import type { Rejected, Sent, Unreachable } from './outcomes.ts';

/** A customer as the authority keeps it on a branch's list. */
export interface AuthorityCustomer {
  /** The gateway's number of the customer at the authority (`C12`). */
  number: string;
  tpin: string;
  name: string;
  address: string | null;
  phone: string | null;
  email: string | null;
}

/** What the authority's register says about a taxpayer id; `code` is the authority's result code. */
export type TaxpayerLookup =
  | { kind: 'found'; code: string; name: string | null; address: string | null }
  | { kind: 'unknown'; code: string; message: string }
  | Rejected
  | Unreachable;

export interface CustomersPort {
  lookUp(device: AuthorityDevice, tpin: string, options?: CallOptions): Promise<TaxpayerLookup>;
  register(device: AuthorityDevice, customer: AuthorityCustomer, options?: CallOptions): Promise<Sent>;
}
