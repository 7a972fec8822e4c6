// The control operations that are the same for every profile: a device's fault switches, its
// call log, forgetting it, the taxpayer register's list and a reset. A profile's control extends
// this with what its devices hold.
import { applyFaults, ControlInputError, noFaults, type DeviceFaults, type FaultVocabulary } from './faults.js';
import type { CallRecord, DeviceStore, StoredDevice, Taxpayer } from './store.js';

export abstract class DeviceControl<D extends StoredDevice> {
  constructor(
    protected readonly state: DeviceStore<D>,
    protected readonly now: () => Date,
    protected readonly faultWords: FaultVocabulary<D['faults']['loseRepliesOn'][number]>,
  ) {}

  /** Throws a ControlInputError when the pair is no device key of the authority's. */
  protected abstract checkDeviceKey(tpin: string, bhfId: string): void;

  forgetDevice(tpin: string, bhfId: string): boolean {
    return this.state.forgetDevice(tpin, bhfId);
  }

  /** The protocol calls the device answered, oldest first (the newest CALL_LOG_LIMIT), optionally of one endpoint. */
  calls(tpin: string, bhfId: string, endpoint?: string): D['calls'] {
    if (endpoint !== undefined && !(this.faultWords.endpoints as readonly string[]).includes(endpoint))
      throw new ControlInputError(`unknown endpoint "${endpoint}"`);
    const calls: CallRecord[] = this.state.findDevice(tpin, bhfId)?.calls ?? [];
    return endpoint ? calls.filter((c) => c.endpoint === endpoint) : [...calls];
  }

  getFaults(tpin: string, bhfId: string): D['faults'] {
    return this.state.findDevice(tpin, bhfId)?.faults ?? noFaults(this.faultWords.defaultEndpoints);
  }

  setFaults(tpin: string, bhfId: string, input: unknown): D['faults'] {
    this.checkDeviceKey(tpin, bhfId);
    const device = this.state.device(tpin, bhfId);
    device.faults = applyFaults(device.faults as DeviceFaults, input, this.faultWords);
    return device.faults;
  }

  clearFaults(tpin: string, bhfId: string): D['faults'] {
    const device = this.state.findDevice(tpin, bhfId);
    if (device) device.faults = noFaults(this.faultWords.defaultEndpoints);
    return noFaults(this.faultWords.defaultEndpoints);
  }

  listTaxpayers(): Taxpayer[] {
    return [...this.state.taxpayers.values()];
  }

  reset(): void {
    this.state.reset();
  }
}
