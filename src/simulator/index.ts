export { startSimulator, type Simulator, type SimulatorOptions } from './server.ts';
export { SimulatorControl, type DevicePreset, type DeviceSummary, type DeviceDetail } from './control.ts';
export { CLASSIFICATION_CATALOGUE, CLASSIFICATION_CODES, isKnownClassification } from './catalogue.ts';
export { CODE_TABLES } from './code-tables.ts';
export { KNOWN_TAXPAYERS, type Taxpayer } from './taxpayers.ts';
export type { DeviceFaults, ReceivedDocument, IssuedReceipt, ImportRecord } from './device.ts';
export type { FaultsInput } from './faults.ts';
export { runSimulatorCli } from './cli.ts';
