// The fault switches in ZRA's words: its endpoint names, saveSales where `reject` and
// `loseReplies` apply unless told, its result messages.
import { VSDC_PATHS, type VsdcEndpoint } from '@fiscal-gateway/vsdc-protocol';
import type { FaultVocabulary } from '../../core/faults.js';
import { DEFAULT_FAULT_ENDPOINTS } from './device.js';
import { RESULT_MESSAGES } from './replies.js';

export const ZRA_FAULT_WORDS: FaultVocabulary<VsdcEndpoint> = {
  endpoints: Object.keys(VSDC_PATHS) as VsdcEndpoint[],
  defaultEndpoints: DEFAULT_FAULT_ENDPOINTS,
  resultMessage: (code) => RESULT_MESSAGES[code] ?? 'Error',
};
