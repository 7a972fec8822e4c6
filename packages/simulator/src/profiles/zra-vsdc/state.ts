// The ZRA VSDC's store: the generic device store with ZRA's devices, its known taxpayers, its
// device identities (sdcId / mrcNo) and the RRP feed every taxpayer shares.
import type { RrpItem } from '@fiscal-gateway/vsdc-protocol';
import { DeviceStore } from '../../core/store.js';
import { deviceFromRecord, newDeviceRecord, type Device, type DeviceRecord } from './device.js';
import { KNOWN_TAXPAYERS } from './taxpayers.js';

/** An RRP as the feed keeps it: every manufacturer's, keyed by `manufacturerTpin` + `itemCd`. */
export type RrpRecord = RrpItem & { itemTyCd: string; itemDesc: string | null; useYn: 'Y' | 'N'; changedAt: string };

/** The first device gets the sandbox's real pair: SDC0010002115 / WIS00003036. */
const FIRST_DEVICE_NO = 2115;

export class SimulatorState extends DeviceStore<Device> {
  /** The RRP feed is the authority's, shared by every taxpayer (`saveRrpItems`, `selectRrpItems`). */
  readonly rrpItems: RrpRecord[] = [];

  constructor(stateFile?: string) {
    super(
      {
        firstDeviceNo: FIRST_DEVICE_NO,
        knownTaxpayers: KNOWN_TAXPAYERS,
        newDevice: (tpin, bhfId, name) => deviceFromRecord(newDeviceRecord(tpin, bhfId, name)),
        deviceFromRecord: (record: DeviceRecord) => deviceFromRecord(record),
      },
      stateFile,
    );
    this.loadFile();
  }

  /** The device a serial number is installed on, if any. */
  deviceWithSerial(dvcSrlNo: string): Device | undefined {
    for (const device of this.devices.values()) if (device.record.installed && device.record.dvcSrlNo === dvcSrlNo) return device;
    return undefined;
  }

  allocateIdentity(): { sdcId: string; mrcNo: string } {
    const n = this.takeDeviceNo();
    // Real VSDCs pad mrcNo with trailing spaces; the gateway must trim it.
    return { sdcId: `SDC0010${String(n).padStart(6, '0')}`, mrcNo: `WIS${String(n + 921).padStart(8, '0')}  ` };
  }

  protected override extras(): Record<string, unknown> {
    return { rrpItems: this.rrpItems };
  }

  /** Absent in files written before the RRP feed existed. */
  protected override loadExtras(persisted: { rrpItems?: RrpRecord[] }): void {
    this.rrpItems.push(...(persisted.rrpItems ?? []));
  }

  protected override resetExtras(): void {
    this.rrpItems.length = 0;
  }
}
