// What a KRA profile remembers per device (tin + bhfId) and for all of them (its settings, its
// taxpayer register), kept as plain JSON for the state file.
import { noFaults, type DeviceFaults } from '../../core/faults.js';
import { DeviceStore, type StoredDevice, type Taxpayer } from '../../core/store.js';

/** The receipt fields a filed sale got, in the OSCU's words (the VSCU renames them in its reply). */
export interface KraReceipt {
  curRcptNo: number;
  totRcptNo: number;
  intrlData: string;
  rcptSign: string;
  /** `YYYYMMDDHHmmss`, Nairobi time. */
  sdcDateTime: string;
}

/** A sale or credit note the device filed: the body as sent and what the device gave it. */
export interface KraFiledDocument {
  invcNo: number;
  rcptTyCd: 'S' | 'R';
  /** VSCU only: N, T or P (absent on OSCU). */
  salesTyCd: string | null;
  orgInvcNo: number;
  custTin: string | null;
  salesDt: string;
  totAmt: number;
  receipt: KraReceipt;
  /** The body as it arrived (numbers as sent: strings stay strings). */
  body: Record<string, unknown>;
  /** On a sale: the credit notes filed against it, by invcNo. */
  creditNotes: number[];
  /** On a sale: what its credit notes took back (sum of their totAmt). */
  credited: number;
  /** VSCU with `vscuTwoStepSale`: false until `/trnsSales/saveInvoice` has asked for its receipt. */
  invoiced?: boolean;
}

/** Every call to the sale endpoint, in arrival order (the control API's `documents`). */
export interface KraReceivedDocument {
  seq: number;
  /** `YYYYMMDDHHmmss`, Nairobi time. */
  receivedAt: string;
  invcNo: number | null;
  rcptTyCd: string | null;
  resultCd: string;
  resultMsg: string;
  body: Record<string, unknown>;
  receipt: KraReceipt | null;
  /** Filed, but the reply was dropped (loseReplies). */
  replyLost: boolean;
}

interface Changed {
  /** `YYYYMMDDHHmmss`, Nairobi time: selects return entries changed at or after `lastReqDt`. */
  changedAt: string;
}

export type KraRecord = Record<string, unknown> & Changed;

export interface KraDeviceRecord {
  tpin: string;
  bhfId: string;
  installed: boolean;
  dvcSrlNo: string | null;
  sdcId: string | null;
  mrcNo: string | null;
  /** OSCU: the key issued at init, required in the `cmcKey` header afterwards. */
  cmcKey: string | null;
  taxprNm: string;
  bhfNm: string;
  installedAt: string | null;
  lastInvcNo: number;
  /** Receipt counters: per receipt type (curRcptNo) and across types (totRcptNo). */
  rcptNoByType: Record<string, number>;
  totRcptNo: number;
  filed: KraFiledDocument[];
  received: KraReceivedDocument[];
  customers: KraRecord[];
  users: KraRecord[];
  insurances: KraRecord[];
  items: KraRecord[];
  compositions: KraRecord[];
  imports: KraRecord[];
  notices: KraRecord[];
  /** Sales addressed to this taxpayer (selectTrnsPurchaseSalesList), fed through the control API. */
  purchaseSales: KraRecord[];
  purchases: KraRecord[];
  stockMoves: KraRecord[];
  /** By itemCd. */
  stockMaster: Record<string, KraRecord>;
}

export interface KraDevice extends StoredDevice<KraDeviceRecord, string> {
  filedByInvcNo: Map<number, KraFiledDocument>;
}

/** What the profile checks, and how; changed through the control API (`PUT …/settings`). */
export interface KraSettings {
  /** Check the sale's arithmetic at all. */
  arithmetic: boolean;
  /** Per line: how far an amount may be from what its parts make. */
  lineTolerance: number;
  /** Per header amount: this times the number of lines. */
  headerTolerancePerLine: number;
  /** The code a reused invcNo gets. */
  duplicateCode: '994' | '921';
  /** How many credit notes a sale may have (null: no cap). */
  creditNoteCap: number | null;
  /** Credit notes may not take back more than remains of the original. */
  creditNoteRemaining: boolean;
  /** A credit note's salesDt within six months of the original's (and not before it). */
  creditNoteSixMonths: boolean;
  /** A credit note's custTin equals the original's. */
  creditNoteSamePin: boolean;
  /** Serials init refuses with 901 (any other serial is accepted). */
  unknownSerials: string[];
  /** VSCU: saveSales files the sale and answers no receipt; `/trnsSales/saveInvoice {invcNo}` then gives it. */
  vscuTwoStepSale: boolean;
  /**
   * OSCU behind KRA's token gateway: the token endpoint wants Basic `clientId:clientSecret` and
   * gives `accessToken`, and every call must carry `Authorization: Bearer <accessToken>` (else a
   * 401). Null: `Authorization` is ignored and the token endpoint gives a token to anyone.
   */
  oauth: { clientId: string; clientSecret: string; accessToken: string } | null;
}

export const DEFAULT_SETTINGS: KraSettings = {
  arithmetic: true,
  lineTolerance: 0.01,
  headerTolerancePerLine: 0.01,
  duplicateCode: '994',
  creditNoteCap: null,
  creditNoteRemaining: true,
  creditNoteSixMonths: true,
  creditNoteSamePin: true,
  unknownSerials: [],
  vscuTwoStepSale: false,
  oauth: null,
};

export const KRA_TAXPAYERS: readonly Taxpayer[] = [
  { tpin: 'P051234567X', name: 'Simulated Merchant Ltd', address: 'Moi Avenue, Nairobi' },
  { tpin: 'A123456789Z', name: 'Simulated Customer Ltd', address: 'Kenyatta Avenue, Nairobi' },
  { tpin: 'P000000001A', name: 'Simulated Supplier Ltd', address: 'Industrial Area, Nairobi' },
];

function newKraRecord(tpin: string, bhfId: string, taxprNm: string): KraDeviceRecord {
  return {
    tpin,
    bhfId,
    installed: false,
    dvcSrlNo: null,
    sdcId: null,
    mrcNo: null,
    cmcKey: null,
    taxprNm,
    bhfNm: bhfId === '00' ? 'Headquarter' : `Branch ${bhfId}`,
    installedAt: null,
    lastInvcNo: 0,
    rcptNoByType: {},
    totRcptNo: 0,
    filed: [],
    received: [],
    customers: [],
    users: [],
    insurances: [],
    items: [],
    compositions: [],
    imports: [],
    notices: [],
    purchaseSales: [],
    purchases: [],
    stockMoves: [],
    stockMaster: {},
  };
}

function fromRecord(record: KraDeviceRecord, defaultEndpoints: readonly string[]): KraDevice {
  const fresh = newKraRecord(record.tpin, record.bhfId, record.taxprNm) as unknown as Record<string, unknown>;
  const stored = record as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(fresh)) if (stored[key] === undefined) stored[key] = value;
  return {
    record,
    faults: noFaults(defaultEndpoints) as DeviceFaults<string>,
    calls: [],
    filedByInvcNo: new Map(record.filed.map((d) => [d.invcNo, d])),
  };
}

export class KraState extends DeviceStore<KraDevice> {
  settings: KraSettings = structuredClone(DEFAULT_SETTINGS);

  constructor(
    private readonly kind: 'OSCU' | 'VSCU',
    defaultEndpoints: readonly string[],
    stateFile?: string,
  ) {
    super(
      {
        firstDeviceNo: 1,
        knownTaxpayers: KRA_TAXPAYERS,
        newDevice: (tpin, bhfId, name) => fromRecord(newKraRecord(tpin, bhfId, name), defaultEndpoints),
        deviceFromRecord: (record: KraDeviceRecord) => fromRecord(record, defaultEndpoints),
      },
      stateFile,
    );
    this.loadFile();
  }

  deviceWithSerial(serial: string): KraDevice | undefined {
    for (const device of this.devices.values()) if (device.record.installed && device.record.dvcSrlNo === serial) return device;
    return undefined;
  }

  allocateIdentity(): { sdcId: string; mrcNo: string } {
    const n = this.takeDeviceNo();
    return { sdcId: `K${this.kind === 'OSCU' ? 'RAC' : 'RAV'}${String(n).padStart(9, '0')}`, mrcNo: `KRAMRC${String(n).padStart(7, '0')}` };
  }

  protected override extras(): Record<string, unknown> {
    return { settings: this.settings };
  }

  protected override loadExtras(persisted: { settings?: Partial<KraSettings> }): void {
    this.settings = { ...structuredClone(DEFAULT_SETTINGS), ...persisted.settings };
  }

  protected override resetExtras(): void {
    this.settings = structuredClone(DEFAULT_SETTINGS);
  }
}
