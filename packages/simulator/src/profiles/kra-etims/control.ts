// A KRA profile's operations behind the control API: the generic ones, what its devices hold,
// the documents they filed (typed, for the gateway's tests), its settings and the feeds KRA
// publishes to a taxpayer (imports, notices, sales by suppliers).
import { DeviceControl } from '../../core/control.js';
import { ControlInputError, type DeviceFaults } from '../../core/faults.js';
import type { ProfileControl } from '../../core/profile.js';
import type { Taxpayer } from '../../core/store.js';
import { kenyaDateTime } from './codes.js';
import {
  DEFAULT_SETTINGS,
  type KraDevice,
  type KraFiledDocument,
  type KraReceivedDocument,
  type KraRecord,
  type KraSettings,
  type KraState,
} from './device.js';

/** A device as the control API lists it (never its cmcKey). */
export interface KraDeviceSummary {
  tin: string;
  bhfId: string;
  installed: boolean;
  dvcSrlNo: string | null;
  sdcId: string | null;
  mrcNo: string | null;
  taxprNm: string;
  bhfNm: string;
  lastInvcNo: number;
  totRcptNo: number;
  filedCount: number;
  receivedCount: number;
  faults: DeviceFaults;
}

/** What `PUT …/devices/:tin/:bhfId` may set. */
export interface KraDevicePreset {
  /** true: installed without an init call (as by another integrator), with `cmcKey` if given (OSCU). */
  installed?: boolean;
  cmcKey?: string;
  dvcSrlNo?: string;
  taxprNm?: string;
  bhfNm?: string;
  lastInvcNo?: number;
}

export class KraControl extends DeviceControl<KraDevice> implements ProfileControl {
  constructor(
    protected override readonly state: KraState,
    now: () => Date,
    faultWords: ConstructorParameters<typeof DeviceControl<KraDevice>>[2],
  ) {
    super(state, now, faultWords);
  }

  protected checkDeviceKey(tin: string, bhfId: string): void {
    if (!/^[A-Z0-9]{11}$/.test(tin)) throw new ControlInputError('tin must be an 11-character KRA PIN');
    if (!/^[0-9A-Za-z]{2}$/.test(bhfId)) throw new ControlInputError('bhfId must be 2 characters');
  }

  private summary(device: KraDevice): KraDeviceSummary {
    const r = device.record;
    return {
      tin: r.tpin,
      bhfId: r.bhfId,
      installed: r.installed,
      dvcSrlNo: r.dvcSrlNo,
      sdcId: r.sdcId,
      mrcNo: r.mrcNo,
      taxprNm: r.taxprNm,
      bhfNm: r.bhfNm,
      lastInvcNo: r.lastInvcNo,
      totRcptNo: r.totRcptNo,
      filedCount: r.filed.length,
      receivedCount: r.received.length,
      faults: device.faults,
    };
  }

  listDevices(): KraDeviceSummary[] {
    return [...this.state.devices.values()].map((d) => this.summary(d));
  }

  getDevice(tin: string, bhfId: string): (KraDeviceSummary & Record<string, unknown>) | undefined {
    const device = this.state.findDevice(tin, bhfId);
    if (!device) return undefined;
    const { cmcKey: _secret, filed: _f, received: _r, ...rest } = device.record;
    return { ...rest, ...this.summary(device) };
  }

  presetDevice(tin: string, bhfId: string, preset: KraDevicePreset): KraDeviceSummary {
    this.checkDeviceKey(tin, bhfId);
    const known = new Set(['installed', 'cmcKey', 'dvcSrlNo', 'taxprNm', 'bhfNm', 'lastInvcNo']);
    for (const key of Object.keys(preset)) if (!known.has(key)) throw new ControlInputError(`unknown device field "${key}"`);
    const device = this.state.device(tin, bhfId);
    const r = device.record;
    if (preset.installed === false) Object.assign(r, { installed: false, cmcKey: null, installedAt: null });
    if (preset.installed === true && !r.installed) {
      if (r.sdcId === null) Object.assign(r, this.state.allocateIdentity());
      Object.assign(r, { installed: true, installedAt: kenyaDateTime(this.now()), dvcSrlNo: r.dvcSrlNo ?? `preset-${tin}-${bhfId}` });
    }
    if (preset.cmcKey !== undefined) {
      if (typeof preset.cmcKey !== 'string' || preset.cmcKey.trim() === '')
        throw new ControlInputError('cmcKey must be a non-empty string');
      r.cmcKey = preset.cmcKey;
    }
    if (preset.dvcSrlNo !== undefined) r.dvcSrlNo = String(preset.dvcSrlNo);
    if (preset.taxprNm !== undefined) r.taxprNm = String(preset.taxprNm);
    if (preset.bhfNm !== undefined) r.bhfNm = String(preset.bhfNm);
    if (preset.lastInvcNo !== undefined) {
      if (!Number.isSafeInteger(preset.lastInvcNo) || preset.lastInvcNo < 0)
        throw new ControlInputError('lastInvcNo must be a whole number ≥ 0');
      r.lastInvcNo = preset.lastInvcNo;
    }
    this.state.changed();
    return this.summary(device);
  }

  addTaxpayer(input: unknown): Taxpayer {
    const { tin, tpin, name, address } = (input ?? {}) as Record<string, unknown>;
    const pin = tin ?? tpin;
    if (typeof pin !== 'string' || !/^[A-Z0-9]{11}$/.test(pin)) throw new ControlInputError('tin must be an 11-character KRA PIN');
    if (typeof name !== 'string' || name.trim() === '') throw new ControlInputError('name must be a non-empty string');
    const taxpayer: Taxpayer = { tpin: pin, name, address: typeof address === 'string' ? address : null };
    this.state.taxpayers.set(pin, taxpayer);
    this.state.changed();
    return taxpayer;
  }

  /** Every call to the sale endpoint, in arrival order (with `filedOnly`, the filed ones only). */
  documents(tin: string, bhfId: string, options: { filedOnly?: boolean } = {}): KraReceivedDocument[] {
    const received = this.state.findDevice(tin, bhfId)?.record.received ?? [];
    return options.filedOnly ? received.filter((d) => d.receipt !== null) : [...received];
  }

  /** The documents the device filed, as filed (the body as sent, the receipt, the credit notes against a sale). */
  filed(tin: string, bhfId: string): KraFiledDocument[] {
    return [...(this.state.findDevice(tin, bhfId)?.record.filed ?? [])];
  }

  getSettings(): KraSettings {
    return structuredClone(this.state.settings);
  }

  setSettings(input: unknown): KraSettings {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ControlInputError('settings must be a JSON object');
    const next = { ...this.state.settings };
    for (const [key, value] of Object.entries(input)) {
      if (!(key in DEFAULT_SETTINGS)) throw new ControlInputError(`unknown setting "${key}"`);
      const ok =
        key === 'duplicateCode'
          ? value === '994' || value === '921'
          : key === 'creditNoteCap'
            ? value === null || (Number.isInteger(value) && (value as number) >= 1)
            : key === 'oauth'
              ? value === null ||
                (typeof value === 'object' &&
                  !Array.isArray(value) &&
                  ['clientId', 'clientSecret', 'accessToken'].every(
                    (f) => typeof (value as Record<string, unknown>)[f] === 'string' && (value as Record<string, string>)[f] !== '',
                  ))
              : key === 'unknownSerials'
                ? Array.isArray(value) && value.every((v) => typeof v === 'string')
                : key === 'lineTolerance' || key === 'headerTolerancePerLine'
                  ? typeof value === 'number' && value >= 0
                  : typeof value === 'boolean';
      if (!ok)
        throw new ControlInputError(
          `setting ${key}: ${JSON.stringify(value)} is not allowed (defaults: ${JSON.stringify(DEFAULT_SETTINGS)})`,
        );
      (next as Record<string, unknown>)[key] = value;
    }
    this.state.settings = next;
    this.state.changed();
    return this.getSettings();
  }

  /** Adds entries to a device's feed (imports, notices, sales by suppliers), stamped now. */
  feed(tin: string, bhfId: string, feed: 'imports' | 'notices' | 'purchaseSales', entries: unknown): KraRecord[] {
    this.checkDeviceKey(tin, bhfId);
    if (
      !Array.isArray(entries) ||
      entries.length === 0 ||
      !entries.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e))
    ) {
      throw new ControlInputError(`${feed} must be a non-empty array of objects`);
    }
    const changedAt = kenyaDateTime(this.now());
    const list = this.state.device(tin, bhfId).record[feed];
    const added = (entries as Record<string, unknown>[]).map((e, i) => {
      if (feed === 'imports') return { imptItemsttsCd: '2', taskCd: `TASK${changedAt}`, itemSeq: list.length + i + 1, ...e, changedAt };
      if (feed === 'notices') return { noticeNo: list.length + i + 1, regrNm: 'KRA', regDt: changedAt, ...e, changedAt };
      return { ...e, changedAt };
    });
    list.push(...added);
    this.state.changed();
    return added;
  }
}
