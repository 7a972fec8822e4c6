// ZRA's operations behind the control API, shared by the HTTP routes and the in-process handle:
// the generic ones (faults, calls, forget, reset) and what a ZRA device holds.
import {
  formatVsdcDate,
  formatVsdcDateTime,
  type ImportItem,
  type Notice,
  type Principal,
  type PurchaseSale,
} from '@fiscal-gateway/vsdc-protocol';
import { DeviceControl } from '../../core/control.js';
import type { ProfileControl } from '../../core/profile.js';
import {
  type BranchUserRecord,
  type CompositionRecord,
  type Device,
  type DeviceFaults,
  type DocumentTotals,
  type IssuedReceipt,
  type ImportRecord,
  type NoticeRecord,
  type PrincipalRecord,
  type PurchaseRecord,
  type ReceivedDocument,
  type SavedPurchase,
  type StockLevel,
  type StockMovementRecord,
} from './device.js';
import { ControlInputError } from '../../core/faults.js';
import { ZRA_FAULT_WORDS } from './faults.js';
import { seedNotices, seedPrincipals } from './feeds.js';
import { upsertRrpItems } from './items.js';
import { seedPurchases } from './purchases.js';
import type { RrpRecord, SimulatorState } from './state.js';
import { KNOWN_TAXPAYERS, type Taxpayer } from './taxpayers.js';

export interface DevicePreset {
  installed?: boolean;
  dvcSrlNo?: string;
  lastSaleInvcNo?: number;
  lastSaleRcptNo?: number;
  lastTrainInvcNo?: number;
  lastProfrmInvcNo?: number;
  taxprNm?: string;
  bhfNm?: string;
}

export interface DeviceSummary {
  tpin: string;
  bhfId: string;
  installed: boolean;
  dvcSrlNo: string | null;
  sdcId: string | null;
  mrcNo: string | null;
  taxprNm: string;
  bhfNm: string;
  lastSaleInvcNo: number;
  lastSaleRcptNo: number;
  lastTrainInvcNo: number | null;
  lastProfrmInvcNo: number | null;
  filedCount: number;
  receivedCount: number;
  faults: DeviceFaults;
}

export interface DeviceDetail extends DeviceSummary {
  installedAt: string | null;
  lastPchsInvcNo: number;
  branchCustomers: unknown[];
  branchUsers: BranchUserRecord[];
  items: unknown[];
  compositions: CompositionRecord[];
  imports: ImportRecord[];
  notices: NoticeRecord[];
  principals: PrincipalRecord[];
  /** The sales addressed to this taxpayer, each with the buyer's latest answer. */
  purchases: PurchaseRecord[];
  /** What savePurchase recorded. */
  savedPurchases: SavedPurchase[];
  stockMovements: StockMovementRecord[];
  /** Remaining quantity per itemCd, as the last saveStockMaster said. */
  stockLevels: Record<string, StockLevel>;
}

function summary(device: Device): DeviceSummary {
  const r = device.record;
  return {
    tpin: r.tpin,
    bhfId: r.bhfId,
    installed: r.installed,
    dvcSrlNo: r.dvcSrlNo,
    sdcId: r.sdcId,
    mrcNo: r.mrcNo,
    taxprNm: r.taxprNm,
    bhfNm: r.bhfNm,
    lastSaleInvcNo: r.lastSaleInvcNo,
    lastSaleRcptNo: r.lastSaleRcptNo,
    lastTrainInvcNo: r.lastTrainInvcNo ?? null,
    lastProfrmInvcNo: r.lastProfrmInvcNo ?? null,
    filedCount: r.filed.length,
    receivedCount: r.received.length,
    faults: device.faults,
  };
}

function checkDeviceKey(tpin: string, bhfId: string): void {
  if (!/^\d{10}$/.test(tpin)) throw new ControlInputError('tpin must be 10 digits');
  if (!/^[0-9A-Za-z]{3}$/.test(bhfId)) throw new ControlInputError('bhfId must be 3 characters');
}

function wholeNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ControlInputError(`${field} must be a whole number ≥ 0`);
  return value;
}

function objectList(value: unknown, field: string): Record<string, unknown>[] {
  if (!Array.isArray(value) || value.length === 0) throw new ControlInputError(`${field} must be a non-empty array`);
  if (!value.every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry)))
    throw new ControlInputError(`each of ${field} must be an object`);
  return value as Record<string, unknown>[];
}

export class SimulatorControl extends DeviceControl<Device> implements ProfileControl {
  private taskCounter = 0;

  constructor(
    protected override readonly state: SimulatorState,
    now: () => Date,
  ) {
    super(state, now, ZRA_FAULT_WORDS);
  }

  protected checkDeviceKey(tpin: string, bhfId: string): void {
    checkDeviceKey(tpin, bhfId);
  }

  listDevices(): DeviceSummary[] {
    return [...this.state.devices.values()].map(summary);
  }

  getDevice(tpin: string, bhfId: string): DeviceDetail | null {
    const device = this.state.findDevice(tpin, bhfId);
    if (!device) return null;
    const r = device.record;
    return {
      ...summary(device),
      installedAt: r.installedAt,
      lastPchsInvcNo: r.lastPchsInvcNo,
      branchCustomers: r.branchCustomers,
      branchUsers: r.branchUsers,
      items: r.items,
      compositions: r.compositions,
      imports: r.imports,
      notices: r.notices,
      principals: r.principals,
      purchases: r.purchases,
      savedPurchases: r.savedPurchases,
      stockMovements: r.stockMovements,
      stockLevels: r.stockLevels,
    };
  }

  /** Creates or adjusts a device: preset `lastSaleInvcNo`, install it without an init call, etc. */
  presetDevice(tpin: string, bhfId: string, preset: DevicePreset): DeviceSummary {
    checkDeviceKey(tpin, bhfId);
    const device = this.state.device(tpin, bhfId);
    const r = device.record;
    if (preset.lastSaleInvcNo !== undefined) r.lastSaleInvcNo = wholeNumber(preset.lastSaleInvcNo, 'lastSaleInvcNo');
    if (preset.lastSaleRcptNo !== undefined) r.lastSaleRcptNo = wholeNumber(preset.lastSaleRcptNo, 'lastSaleRcptNo');
    if (preset.lastTrainInvcNo !== undefined) r.lastTrainInvcNo = wholeNumber(preset.lastTrainInvcNo, 'lastTrainInvcNo');
    if (preset.lastProfrmInvcNo !== undefined) r.lastProfrmInvcNo = wholeNumber(preset.lastProfrmInvcNo, 'lastProfrmInvcNo');
    if (preset.taxprNm !== undefined) r.taxprNm = String(preset.taxprNm);
    if (preset.bhfNm !== undefined) r.bhfNm = String(preset.bhfNm);
    if (preset.dvcSrlNo !== undefined) r.dvcSrlNo = String(preset.dvcSrlNo);
    if (preset.installed !== undefined) {
      if (typeof preset.installed !== 'boolean') throw new ControlInputError('installed must be true or false');
      r.installed = preset.installed;
      if (r.installed) {
        if (r.sdcId === null || r.mrcNo === null) Object.assign(r, this.state.allocateIdentity());
        r.dvcSrlNo ??= `SIM-${tpin}-${bhfId}`;
        r.installedAt ??= formatVsdcDateTime(this.now());
      }
    }
    this.state.changed();
    return summary(device);
  }

  documents(tpin: string, bhfId: string, options: { filedOnly?: boolean } = {}): ReceivedDocument[] {
    const received = this.state.findDevice(tpin, bhfId)?.record.received ?? [];
    return options.filedOnly ? received.filter((d) => d.receipt !== null) : [...received];
  }

  /**
   * Alters what the device holds for a filed document (`rcptSign`, `rcptNo`, `totAmt`), as a
   * mismatch for reconciliation to find: selectInvoice answers the altered record from now on.
   * The received log keeps what was answered at filing. Null when no such document is filed.
   */
  alterFiled(
    tpin: string,
    bhfId: string,
    cisInvcNo: string,
    input: unknown,
  ): { cisInvcNo: string; receipt: IssuedReceipt; totals: DocumentTotals } | null {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ControlInputError('the body must be a JSON object');
    const raw = input as Record<string, unknown>;
    const known = new Set(['rcptSign', 'rcptNo', 'totAmt']);
    for (const key of Object.keys(raw))
      if (!known.has(key)) throw new ControlInputError(`unknown field "${key}" (send rcptSign, rcptNo or totAmt)`);
    if (Object.keys(raw).length === 0) throw new ControlInputError('send at least one of rcptSign, rcptNo, totAmt');
    if (raw.rcptSign !== undefined && (typeof raw.rcptSign !== 'string' || raw.rcptSign === ''))
      throw new ControlInputError('rcptSign must be a non-empty string');
    if (raw.totAmt !== undefined && (typeof raw.totAmt !== 'number' || !Number.isFinite(raw.totAmt)))
      throw new ControlInputError('totAmt must be a number');
    const rcptNo = raw.rcptNo === undefined ? undefined : wholeNumber(raw.rcptNo, 'rcptNo');
    const filed = this.state.findDevice(tpin, bhfId)?.filedByInvoice.get(cisInvcNo);
    if (!filed) return null;
    filed.receipt = {
      ...filed.receipt,
      ...(raw.rcptSign !== undefined ? { rcptSign: raw.rcptSign as string } : {}),
      ...(rcptNo !== undefined ? { rcptNo } : {}),
    };
    if (raw.totAmt !== undefined) filed.totals = { ...filed.totals, total: raw.totAmt as number };
    this.state.changed();
    return { cisInvcNo, receipt: filed.receipt, totals: filed.totals };
  }

  /** Customs lines addressed to the branch; omitted fields get plausible defaults. */
  feedImports(tpin: string, bhfId: string, items: unknown): ImportRecord[] {
    checkDeviceKey(tpin, bhfId);
    if (!Array.isArray(items) || items.length === 0) throw new ControlInputError('items must be a non-empty array');
    const device = this.state.device(tpin, bhfId);
    const now = this.now();
    this.taskCounter += 1;
    const defaultTask = `${formatVsdcDateTime(now)}${String(this.taskCounter).padStart(3, '0')}`;
    const added = items.map((raw, index): ImportRecord => {
      if (typeof raw !== 'object' || raw === null) throw new ControlInputError('each import item must be an object');
      const given = raw as Partial<ImportItem>;
      const taskCd = given.taskCd ?? defaultTask;
      const line: ImportItem = {
        taskCd,
        dclDe: given.dclDe ?? formatVsdcDate(now),
        itemSeq: given.itemSeq ?? index + 1,
        dclNo: given.dclNo ?? `C${taskCd.slice(-6)}-${now.getUTCFullYear()}`,
        hsCd: given.hsCd ?? '1006300000',
        itemNm: given.itemNm ?? 'Imported goods',
        orgnNatCd: given.orgnNatCd ?? 'ZA',
        exptNatCd: given.exptNatCd ?? 'ZA',
        pkg: given.pkg ?? 1,
        pkgUnitCd: given.pkgUnitCd ?? 'CT',
        qty: given.qty ?? 1,
        qtyUnitCd: given.qtyUnitCd ?? 'U',
        totWt: given.totWt ?? 1,
        netWt: given.netWt ?? 1,
        spplrNm: given.spplrNm ?? 'Southern Suppliers (Pty) Ltd',
        agntNm: given.agntNm ?? 'Chirundu Clearing Agents',
        invcFcurAmt: given.invcFcurAmt ?? 100,
        invcFcurCd: given.invcFcurCd ?? 'USD',
        invcFcurExcrt: given.invcFcurExcrt ?? 26.5,
      };
      return { ...given, ...line, imptItemSttsCd: '2', publishedAt: formatVsdcDateTime(now), decision: null };
    });
    device.record.imports.push(...added);
    this.state.changed();
    return added;
  }

  /** Notices addressed to the device (`selectNotices`); omitted fields get plausible values. */
  feedNotices(tpin: string, bhfId: string, notices: unknown): NoticeRecord[] {
    const device = this.seedTarget(tpin, bhfId);
    const added = seedNotices(device.record, objectList(notices, 'notices') as Partial<Notice>[], this.now());
    this.state.changed();
    return added;
  }

  /** Principals the device, as an RVAT agent, sells for (`selectPrincipals`); a known `id` replaces. */
  feedPrincipals(tpin: string, bhfId: string, principals: unknown): PrincipalRecord[] {
    const device = this.seedTarget(tpin, bhfId);
    const added = seedPrincipals(device.record, objectList(principals, 'principals') as Partial<Principal>[], this.now());
    this.state.changed();
    return added;
  }

  /**
   * Sales addressed to the device's taxpayer (`selectTrnsPurchaseSales`), kept exactly as given,
   * inconsistent fields included; omitted fields get a plausible sale.
   */
  feedPurchases(tpin: string, bhfId: string, purchases: unknown): PurchaseRecord[] {
    const device = this.seedTarget(tpin, bhfId);
    const added = seedPurchases(device.record, objectList(purchases, 'purchases') as Partial<PurchaseSale>[], this.now());
    this.state.changed();
    return added;
  }

  /** The RRP feed every taxpayer reads (`selectRrpItems`). */
  listRrpItems(): RrpRecord[] {
    return [...this.state.rrpItems];
  }

  /** Adds (or replaces, by manufacturerTpin + itemCd) RRPs as if a manufacturer had saved them. */
  feedRrpItems(items: unknown): RrpRecord[] {
    const changedAt = formatVsdcDateTime(this.now());
    const manufacturer = KNOWN_TAXPAYERS[1]!;
    const added = objectList(items, 'items').map((raw, index): RrpRecord => {
      const given = raw as Partial<RrpRecord>;
      if (given.rrp !== undefined && (typeof given.rrp !== 'number' || !(given.rrp > 0)))
        throw new ControlInputError('rrp must be a number greater than 0');
      return {
        manufacturerTpin: manufacturer.tpin,
        manufacturerName: manufacturer.name,
        itemCd: `ZM2NTU${String(8000 + this.state.rrpItems.length + index).padStart(7, '0')}`,
        itemClsCd: '50151513',
        itemTyCd: '2',
        itemNm: 'Cooking oil 5L',
        itemDesc: null,
        orgnNatCd: 'ZM',
        pkgUnitCd: 'NT',
        qtyUnitCd: 'U',
        rrp: 150,
        useYn: 'Y',
        ...given,
        changedAt,
      };
    });
    upsertRrpItems(this.state.rrpItems, added);
    this.state.changed();
    return added;
  }

  private seedTarget(tpin: string, bhfId: string): Device {
    checkDeviceKey(tpin, bhfId);
    return this.state.device(tpin, bhfId);
  }

  addTaxpayer(input: unknown): Taxpayer {
    const raw = (input ?? {}) as Record<string, unknown>;
    if (typeof raw.tpin !== 'string' || !/^\d{10}$/.test(raw.tpin)) throw new ControlInputError('tpin must be 10 digits');
    if (typeof raw.name !== 'string' || raw.name.trim() === '') throw new ControlInputError('name is required');
    const taxpayer: Taxpayer = { tpin: raw.tpin, name: raw.name, address: typeof raw.address === 'string' ? raw.address : null };
    this.state.taxpayers.set(taxpayer.tpin, taxpayer);
    this.state.changed();
    return taxpayer;
  }
}
