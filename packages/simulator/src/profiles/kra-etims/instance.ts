// A KRA profile's instance, whichever of the two: its store, control, fault words, envelope over
// HTTP (resultDt in Nairobi time) and the answers for the server's situations. The profile
// (oscu.ts, vscu.ts) gives its endpoints, its device key and its answers.
import type { FaultVocabulary } from '../../core/faults.js';
import type { HttpAnswer, ProfileInstance, RequestHeaders } from '../../core/profile.js';
import { kenyaDateTime, RESULT_MESSAGES } from './codes.js';
import { KraControl } from './control.js';
import { kraControlRoute } from './control-routes.js';
import { KraState, type KraDevice } from './device.js';
import { envelope, type Body, type KraContext, type KraReply } from './replies.js';

export interface KraInstance extends ProfileInstance<KraReply, KraDevice> {
  readonly store: KraState;
  readonly control: KraControl;
}

export interface KraProtocol {
  kind: 'OSCU' | 'VSCU';
  endpoints: readonly string[];
  saleEndpoint: string;
  deviceKeyOf(body: Body, headers: RequestHeaders): { tpin: string; bhfId: string } | null;
  unknownDevice(body: Body, headers: RequestHeaders): KraReply;
  answer(endpoint: string, body: Body, ctx: KraContext, headers: RequestHeaders): KraReply;
  beside?(method: string, path: string, headers: RequestHeaders, state: KraState): HttpAnswer | undefined;
}

function page(status: number, title: string, path: string): HttpAnswer {
  const safe = path.replace(/[<>&"]/g, '');
  return {
    status,
    contentType: 'text/html',
    body: `<html><head><title>${status} ${title}</title></head><body><center><h1>${status} ${title}</h1></center><hr><center>${safe}</center></body></html>`,
  };
}

const jsonError = (status: number, error: string, path: string, at: Date): HttpAnswer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify({ timestamp: at.toISOString(), status, error, path }),
});

export const KRA_TIN = /^[A-Z0-9]{11}$/;
export const KRA_BHF_ID = /^[0-9A-Za-z]{2}$/;

export function openKra(protocol: KraProtocol, options: { stateFile?: string; now: () => Date }): KraInstance {
  const faultWords: FaultVocabulary = {
    endpoints: protocol.endpoints,
    defaultEndpoints: [protocol.saleEndpoint],
    resultMessage: (code) => RESULT_MESSAGES[code] ?? 'Error',
  };
  const store = new KraState(protocol.kind, faultWords.defaultEndpoints, options.stateFile);
  const control = new KraControl(store, options.now, faultWords);
  return {
    store,
    control,
    faultWords,
    controlRoute: (method, parts, query, body) => kraControlRoute(control, method, parts, query, body),
    deviceKeyOf: protocol.deviceKeyOf,
    bind: () => true,
    answer: (endpoint, body, device, now, headers) => protocol.answer(endpoint, body, { state: store, device, now }, headers),
    forced: (code, message) => envelope(code, null, message),
    unknownDevice: protocol.unknownDevice,
    badRequest: () => envelope('911'),
    appMissing: () => ({ kind: 'html404' }),
    resultCodeOf: (reply) => (reply.kind === 'envelope' ? reply.resultCd : null),
    toHttp: (reply, path, at) => {
      if (reply.kind === 'html404') return page(404, 'Not Found', path);
      if (reply.kind === 'unauthorized')
        return {
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify({ errorCode: '401.002.01', errorMessage: 'Invalid Access Token' }),
        };
      if (reply.loseReply) return null;
      return {
        status: 200,
        contentType: 'application/json;charset=UTF-8',
        body: JSON.stringify({ resultCd: reply.resultCd, resultMsg: reply.resultMsg, resultDt: kenyaDateTime(at), data: reply.data }),
      };
    },
    formatTime: kenyaDateTime,
    beside: protocol.beside && ((method, path, headers) => protocol.beside!(method, path, headers, store)),
    outsideApp: (path) => page(404, 'Not Found', path),
    noEndpoint: (path, at) => jsonError(404, 'Not Found', path, at),
    wrongMethod: (path, at) => jsonError(405, 'Method Not Allowed', path, at),
  };
}
