// The ZRA VSDC as a simulator profile: its paths (vsdc-protocol's VSDC_PATHS), the device a call
// names (tpin + bhfId), Jackson's binding, its endpoints' answers and its HTTP shapes.
import { formatVsdcDateTime, VSDC_PATHS, type VsdcEndpoint } from '@fiscal-gateway/vsdc-protocol';
import type { ProfileInstance, SimulatorProfile } from '../../core/profile.js';
import { zraControlRoute } from './control-routes.js';
import { SimulatorControl } from './control.js';
import type { Device } from './device.js';
import { handleEndpoint } from './endpoints.js';
import { ZRA_FAULT_WORDS } from './faults.js';
import { outsideApp, springError, toHttp } from './http.js';
import { envelope, type Reply } from './replies.js';
import { SimulatorState } from './state.js';
import { bindRequestBody } from './wire-binding.js';

const ENDPOINT_BY_PATH = new Map<string, VsdcEndpoint>(
  Object.entries(VSDC_PATHS).map(([endpoint, path]) => [path, endpoint as VsdcEndpoint]),
);

export interface ZraVsdcInstance extends ProfileInstance<Reply, Device> {
  readonly store: SimulatorState;
  readonly control: SimulatorControl;
}

const validTpin = (tpin: unknown): tpin is string => typeof tpin === 'string' && /^\d{10}$/.test(tpin);
const validBhfId = (bhfId: unknown): bhfId is string => typeof bhfId === 'string' && /^[0-9A-Za-z]{3}$/.test(bhfId);

export const zraVsdc: SimulatorProfile<ZraVsdcInstance> = {
  id: 'zra-vsdc',
  endpointAt: (path) => ENDPOINT_BY_PATH.get(path),
  open({ stateFile, now }) {
    const store = new SimulatorState(stateFile);
    const control = new SimulatorControl(store, now);
    return {
      store,
      control,
      faultWords: ZRA_FAULT_WORDS,
      controlRoute: (method, parts, query, body) => zraControlRoute(control, method, parts, query, body),
      deviceKeyOf: ({ tpin, bhfId }) => (validTpin(tpin) && validBhfId(bhfId) ? { tpin, bhfId } : null),
      bind: (endpoint, body) => bindRequestBody(endpoint as VsdcEndpoint, body),
      answer: (endpoint, body, device, at) => handleEndpoint(endpoint as VsdcEndpoint, body, { state: store, device, now: at }),
      forced: (code, message) => envelope(code, null, message),
      unknownDevice: ({ tpin, bhfId }) => {
        const fields = [validTpin(tpin) ? null : "'tpin': must be 10 digits", validBhfId(bhfId) ? null : "'bhfId': must be 3 characters"];
        return envelope('910', null, `Validation error for fields: [${fields.filter((f) => f !== null).join(', ')}]`);
      },
      badRequest: () => ({ kind: 'bad_request' }),
      appMissing: () => ({ kind: 'html404' }),
      resultCodeOf: (reply) => (reply.kind === 'envelope' ? reply.resultCd : null),
      toHttp,
      formatTime: formatVsdcDateTime,
      outsideApp,
      noEndpoint: (path, at) => springError(404, 'Not Found', path, at),
      wrongMethod: (path, at) => springError(405, 'Method Not Allowed', path, at),
    };
  },
};
