// What the package exports of the KRA profiles.
import { KraControl } from './control.js';

export { checkKraSaleArithmetic, kraNumber, DEFAULT_KRA_TOLERANCE, type KraArithmeticError, type KraTolerance } from './arithmetic.js';
export { KRA_CODE_TABLES, KRA_ITEM_CLASSES, kraTaxRate } from './codes.js';
export { KRA_TAXPAYERS, type KraFiledDocument, type KraReceivedDocument, type KraReceipt, type KraSettings } from './device.js';
export { KraControl, type KraDeviceSummary, type KraDevicePreset } from './control.js';

/** The typed control of a KRA profile of a running simulator. */
export function kraControl(sim: { controlOf(profileId: string): unknown }, profileId: 'kra-oscu' | 'kra-vscu'): KraControl {
  const control = sim.controlOf(profileId);
  if (!(control instanceof KraControl)) throw new Error(`simulator: ${profileId} is no KRA profile`);
  return control;
}
