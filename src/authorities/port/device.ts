// A device as an authority reaches it, and its life with the authority: initialisation.
import type { Rejected, Unreachable } from './outcomes.ts';

/**
 * Which adapter speaks for a device: `<its tenant's authority>-<its protocol>` (`zra-vsdc`), one of
 * the registry's lines (index.ts); `profileOf` refuses any other.
 */
export type AuthorityProfileId = `${string}-${string}`;

/** A device (a branch's fiscal unit) as the adapter needs it for a call. */
export interface AuthorityDevice {
  profile: AuthorityProfileId;
  /** Where its unit answers (the device's `vsdcBaseUrl`). */
  baseUrl: string;
  /** The merchant's taxpayer id (`tpin` in the API). */
  tpin: string;
  /** The branch, as the authority numbers it. */
  branch: string;
  /** What its initialisation said (null before it). */
  sdcId?: string | null;
  mrcNo?: string | null;
  /**
   * The key the unit's initialisation gave and every later call carries (KRA's `cmcKey`), opened
   * from its sealed column; null for an authority that has none. A secret: never logged or shown.
   */
  unitKey?: string | null;
  /** The credential of an API gateway in front of the authority (KRA's token gateway), when the device has one. */
  apiCredential?: ApiCredential | null;
  /** Files to the authority's production system (its receipts verify on the production portal). */
  production?: boolean;
}

/** How a device proves itself to a gateway in front of the authority: a fixed token, or a client's id and secret for a token endpoint. */
type ApiCredential = { kind: 'bearer'; token: string } | { kind: 'client'; clientId: string; clientSecret: string; tokenUrl: string };

/** What an initialisation told the gateway about the device. */
interface InitialisedDevice {
  sdcId: string;
  mrcNo: string;
  taxpayerName: string | null;
  branchName: string | null;
  /** The counters the unit keeps, to continue each sequence from; 0 / null when it keeps none. */
  lastSaleInvoiceNo: number;
  lastPurchaseInvoiceNo: number | null;
  lastSaleReceiptNo: number | null;
  lastTrainingInvoiceNo?: number | null;
  lastProformaInvoiceNo?: number | null;
  /** The key every later call carries (KRA's `cmcKey`): the domain stores it sealed. */
  unitKey?: string | null;
}

export type Initialisation =
  | { kind: 'ok'; device: InitialisedDevice }
  /** The unit was initialised before (a safe repeat): the gateway keeps what it has. */
  | { kind: 'already_installed'; message: string }
  | { kind: 'rejected'; code: string; message: string }
  | Unreachable;

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface DevicePort {
  /** Initialises the device with the authority (its serial as registered). */
  initialise(device: AuthorityDevice, serial: string, options?: CallOptions): Promise<Initialisation>;
  /**
   * Checks, with a call that changes nothing, that the authority accepts the device as it stands
   * (its unit id and key handed over from an earlier initialisation elsewhere).
   */
  verify(device: AuthorityDevice, options?: CallOptions): Promise<{ kind: 'ok' } | Rejected | Unreachable>;
}
