export { startSimulator, type Simulator, type SimulatorOptions } from './server.js';
export type { SimulatorStats } from './control-api.js';
export { SimulatorControl, type DevicePreset, type DeviceSummary, type DeviceDetail } from './control.js';
export { CLASSIFICATION_CATALOGUE, CLASSIFICATION_CODES, isKnownClassification } from './catalogue.js';
export { CODE_TABLES } from './code-tables.js';
export { KNOWN_TAXPAYERS, type Taxpayer } from './taxpayers.js';
export type { DeviceFaults, ReceivedDocument, IssuedReceipt, ImportRecord } from './device.js';
export type { FaultsInput } from './faults.js';
export { parseSimulatorArgs, runSimulatorCli, serveSimulator, SimulatorCliError, type SimulatorCliOptions } from './cli.js';
// In-process use without the HTTP server (the property tests file through the endpoint handler).
export { handleEndpoint } from './endpoints.js';
export { SimulatorState } from './state.js';
export type { EnvelopeReply, Reply } from './replies.js';
