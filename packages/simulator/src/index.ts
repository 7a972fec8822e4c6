export { startSimulator, type Simulator, type SimulatorOptions } from './server.js';
export type { SimulatorStats } from './control-api.js';
export { SimulatorControl, type DevicePreset, type DeviceSummary, type DeviceDetail } from './profiles/zra-vsdc/control.js';
export { CLASSIFICATION_CATALOGUE, CLASSIFICATION_CODES, isKnownClassification } from './profiles/zra-vsdc/catalogue.js';
export { CODE_TABLES } from './profiles/zra-vsdc/code-tables.js';
export { KNOWN_TAXPAYERS, type Taxpayer } from './profiles/zra-vsdc/taxpayers.js';
export type { DeviceFaults, ReceivedDocument, IssuedReceipt, ImportRecord } from './profiles/zra-vsdc/device.js';
export type { FaultsInput } from './core/faults.js';
export { parseSimulatorArgs, runSimulatorCli, serveSimulator, SimulatorCliError, type SimulatorCliOptions } from './cli.js';
// In-process use without the HTTP server (the property tests file through the endpoint handler).
export { handleEndpoint } from './profiles/zra-vsdc/endpoints.js';
export { SimulatorState } from './profiles/zra-vsdc/state.js';
export type { EnvelopeReply, Reply } from './profiles/zra-vsdc/replies.js';
// The KRA eTIMS profiles (kra-oscu, kra-vscu).
export {
  checkKraSaleArithmetic,
  kraNumber,
  DEFAULT_KRA_TOLERANCE,
  KRA_CODE_TABLES,
  KRA_ITEM_CLASSES,
  kraTaxRate,
  KRA_TAXPAYERS,
  KraControl,
  kraControl,
  type KraArithmeticError,
  type KraTolerance,
  type KraFiledDocument,
  type KraReceivedDocument,
  type KraReceipt,
  type KraSettings,
  type KraDeviceSummary,
  type KraDevicePreset,
} from './profiles/kra-etims/index.js';
