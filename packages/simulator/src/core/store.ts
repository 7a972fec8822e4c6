// One profile's store: its devices (tpin + bhfId), its taxpayer register and its device number
// counter, with optional persistence to a JSON file (written debounced after changes, loaded at
// start). What a device record holds, and any data the authority keeps for all its taxpayers,
// are the profile's (its StoreShape and the extras of its subclass).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { DeviceFaults } from './faults.js';

const SAVE_DEBOUNCE_MS = 200;

/** The authority's taxpayer register as the simulator answers it. */
export interface Taxpayer {
  tpin: string;
  name: string;
  address: string | null;
}

/** One protocol call a device answered (the control API's `calls`). */
export interface CallRecord<E extends string = string> {
  endpoint: E;
  request: Record<string, unknown>;
  resultCd: string;
  resultDt: string;
}

/** How many calls a device remembers (newest kept); run-time only, never persisted. */
export const CALL_LOG_LIMIT = 1000;

/** A device in memory: its persisted record (the profile's) plus its run-time faults and call log. */
export interface StoredDevice<R extends { tpin: string; bhfId: string } = { tpin: string; bhfId: string }, E extends string = string> {
  record: R;
  faults: DeviceFaults<E>;
  calls: CallRecord<E>[];
}

/** What the store asks of its profile. */
export interface StoreShape<D extends StoredDevice> {
  /** The number the counter starts from (and starts again from at a reset). */
  firstDeviceNo: number;
  /** The taxpayers the register knows out of the box. */
  knownTaxpayers: readonly Taxpayer[];
  /** A device first seen, not installed. */
  newDevice(tpin: string, bhfId: string, taxpayerName: string): D;
  /** A device from its persisted record (an older file's record upgraded), with no faults. */
  deviceFromRecord(record: D['record']): D;
}

interface PersistedState {
  version: 1;
  nextDeviceNo: number;
  taxpayers: Taxpayer[];
  devices: unknown[];
}

function deviceKey(tpin: string, bhfId: string): string {
  return `${tpin}/${bhfId}`;
}

export class DeviceStore<D extends StoredDevice> {
  readonly devices = new Map<string, D>();
  readonly taxpayers = new Map<string, Taxpayer>();
  protected nextDeviceNo: number;
  private saveTimer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  /** A subclass with extras calls `loadFile()` at the end of its constructor (its fields exist only then). */
  constructor(
    private readonly shape: StoreShape<D>,
    private readonly stateFile?: string,
  ) {
    this.nextDeviceNo = shape.firstDeviceNo;
    this.seedTaxpayers();
  }

  findDevice(tpin: string, bhfId: string): D | undefined {
    return this.devices.get(deviceKey(tpin, bhfId));
  }

  /** The device, created (not installed) on first sight. */
  device(tpin: string, bhfId: string): D {
    const key = deviceKey(tpin, bhfId);
    let device = this.devices.get(key);
    if (!device) {
      const name = this.taxpayers.get(tpin)?.name ?? `Taxpayer ${tpin}`;
      device = this.shape.newDevice(tpin, bhfId, name);
      this.devices.set(key, device);
    }
    return device;
  }

  forgetDevice(tpin: string, bhfId: string): boolean {
    const removed = this.devices.delete(deviceKey(tpin, bhfId));
    if (removed) this.changed();
    return removed;
  }

  /** The next device number (the profile makes its identities from it; never reused). */
  takeDeviceNo(): number {
    return this.nextDeviceNo++;
  }

  reset(): void {
    this.devices.clear();
    this.resetExtras();
    this.seedTaxpayers();
    this.nextDeviceNo = this.shape.firstDeviceNo;
    this.changed();
  }

  /** Marks state as changed; the state file is rewritten shortly after. */
  changed(): void {
    if (!this.stateFile || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.saving = this.saving
        .then(() => this.writeAsync())
        .catch((err: unknown) => console.error('simulator: cannot write state file:', err));
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

  /** Data the profile keeps beside the devices (for every taxpayer), persisted after them. */
  protected extras(): Record<string, unknown> {
    return {};
  }

  protected loadExtras(_persisted: Record<string, unknown>): void {}

  protected resetExtras(): void {}

  /** Loads the state file, if there is one. */
  protected loadFile(): void {
    if (this.stateFile && existsSync(this.stateFile)) this.load(JSON.parse(readFileSync(this.stateFile, 'utf8')) as PersistedState);
  }

  private snapshot(): string {
    const state: PersistedState = {
      version: 1,
      nextDeviceNo: this.nextDeviceNo,
      taxpayers: [...this.taxpayers.values()],
      devices: [...this.devices.values()].map((d) => d.record),
      ...this.extras(),
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
    for (const taxpayer of this.shape.knownTaxpayers) this.taxpayers.set(taxpayer.tpin, { ...taxpayer });
  }

  private load(state: PersistedState): void {
    if (state.version !== 1) throw new Error(`simulator state file has unknown version ${String(state.version)}`);
    this.nextDeviceNo = state.nextDeviceNo;
    this.taxpayers.clear();
    for (const taxpayer of state.taxpayers) this.taxpayers.set(taxpayer.tpin, taxpayer);
    this.loadExtras(state as unknown as Record<string, unknown>);
    for (const record of state.devices as D['record'][]) {
      this.devices.set(deviceKey(record.tpin, record.bhfId), this.shape.deviceFromRecord(record));
    }
  }
}
