// All simulator state: devices, the taxpayer register and the device number counter, with
// optional persistence to a JSON file (written debounced after changes, loaded at start).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { RrpItem } from '@fiscal-gateway/vsdc-protocol';
import { deviceFromRecord, deviceKey, newDeviceRecord, noFaults, type Device, type DeviceRecord } from './device.js';
import { KNOWN_TAXPAYERS, type Taxpayer } from './taxpayers.js';

/** An RRP as the feed keeps it: every manufacturer's, keyed by `manufacturerTpin` + `itemCd`. */
export type RrpRecord = RrpItem & { itemTyCd: string; itemDesc: string | null; useYn: 'Y' | 'N'; changedAt: string };

/** The first device gets the sandbox's real pair: SDC0010002115 / WIS00003036. */
const FIRST_DEVICE_NO = 2115;
const SAVE_DEBOUNCE_MS = 200;

interface PersistedState {
  version: 1;
  nextDeviceNo: number;
  taxpayers: Taxpayer[];
  devices: DeviceRecord[];
  /** Absent in files written before the RRP feed existed. */
  rrpItems?: RrpRecord[];
}

export class SimulatorState {
  readonly devices = new Map<string, Device>();
  readonly taxpayers = new Map<string, Taxpayer>();
  /** The RRP feed is the authority's, shared by every taxpayer (`saveRrpItems`, `selectRrpItems`). */
  readonly rrpItems: RrpRecord[] = [];
  private nextDeviceNo = FIRST_DEVICE_NO;
  private saveTimer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly stateFile?: string) {
    this.seedTaxpayers();
    if (stateFile && existsSync(stateFile)) this.load(JSON.parse(readFileSync(stateFile, 'utf8')) as PersistedState);
  }

  findDevice(tpin: string, bhfId: string): Device | undefined {
    return this.devices.get(deviceKey(tpin, bhfId));
  }

  /** The device, created (not installed) on first sight. */
  device(tpin: string, bhfId: string): Device {
    const key = deviceKey(tpin, bhfId);
    let device = this.devices.get(key);
    if (!device) {
      const name = this.taxpayers.get(tpin)?.name ?? `Taxpayer ${tpin}`;
      device = deviceFromRecord(newDeviceRecord(tpin, bhfId, name));
      this.devices.set(key, device);
    }
    return device;
  }

  forgetDevice(tpin: string, bhfId: string): boolean {
    const removed = this.devices.delete(deviceKey(tpin, bhfId));
    if (removed) this.changed();
    return removed;
  }

  /** The device a serial number is installed on, if any. */
  deviceWithSerial(dvcSrlNo: string): Device | undefined {
    for (const device of this.devices.values()) if (device.record.installed && device.record.dvcSrlNo === dvcSrlNo) return device;
    return undefined;
  }

  allocateIdentity(): { sdcId: string; mrcNo: string } {
    const n = this.nextDeviceNo++;
    // Real VSDCs pad mrcNo with trailing spaces; the gateway must trim it.
    return { sdcId: `SDC0010${String(n).padStart(6, '0')}`, mrcNo: `WIS${String(n + 921).padStart(8, '0')}  ` };
  }

  reset(): void {
    this.devices.clear();
    this.rrpItems.length = 0;
    this.seedTaxpayers();
    this.nextDeviceNo = FIRST_DEVICE_NO;
    this.changed();
  }

  /** Marks state as changed; the state file is rewritten shortly after. */
  changed(): void {
    if (!this.stateFile || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.saving = this.saving.then(() => this.writeAsync()).catch((err: unknown) => console.error('simulator: cannot write state file:', err));
    }, SAVE_DEBOUNCE_MS);
  }

  /** Writes any pending change now (used on close). */
  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = null;
      await this.saving;
      this.writeSync();
    }
    await this.saving;
  }

  private snapshot(): string {
    const state: PersistedState = {
      version: 1,
      nextDeviceNo: this.nextDeviceNo,
      taxpayers: [...this.taxpayers.values()],
      devices: [...this.devices.values()].map((d) => d.record),
      rrpItems: this.rrpItems,
    };
    return JSON.stringify(state);
  }

  private async writeAsync(): Promise<void> {
    if (!this.stateFile) return;
    const temp = `${this.stateFile}.tmp`;
    await writeFile(temp, this.snapshot());
    await rename(temp, this.stateFile);
  }

  private writeSync(): void {
    if (!this.stateFile) return;
    const temp = `${this.stateFile}.tmp`;
    writeFileSync(temp, this.snapshot());
    renameSync(temp, this.stateFile);
  }

  private seedTaxpayers(): void {
    this.taxpayers.clear();
    for (const taxpayer of KNOWN_TAXPAYERS) this.taxpayers.set(taxpayer.tpin, { ...taxpayer });
  }

  private load(state: PersistedState): void {
    if (state.version !== 1) throw new Error(`simulator state file has unknown version ${String(state.version)}`);
    this.nextDeviceNo = state.nextDeviceNo;
    this.taxpayers.clear();
    for (const taxpayer of state.taxpayers) this.taxpayers.set(taxpayer.tpin, taxpayer);
    this.rrpItems.push(...(state.rrpItems ?? []));
    for (const record of state.devices) {
      const device = deviceFromRecord(record);
      device.faults = noFaults();
      this.devices.set(deviceKey(record.tpin, record.bhfId), device);
    }
  }
}
