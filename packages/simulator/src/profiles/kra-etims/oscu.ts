// KRA's OSCU (the online sales control unit KRA hosts) as a simulator profile: flat paths under
// the base, served both as `/etims-api/<name>` and `/<name>`; init keyed by the body, every other
// call by the `tin`, `bhfId` and `cmcKey` headers; `Authorization` ignored unless the `oauth`
// setting puts the OSCU behind a token gateway (`GET /v1/token/generate`, then a Bearer token).
import type { HttpAnswer, RequestHeaders, SimulatorProfile } from '../../core/profile.js';
import { branchInfo, handleShared, install, invoiceDetails, isShared, saleCall, withFaults } from './calls.js';
import { SHARED_OPERATIONS } from './endpoints.js';
import type { KraState } from './device.js';
import { KRA_BHF_ID, KRA_TIN, openKra, type KraInstance } from './instance.js';
import { envelope, ok, param, type Body } from './replies.js';

const INIT = 'selectInitOsdcInfo';
const SALE = 'saveTrnsSalesOsdc';
const LOOKUP = 'selectInvoiceDetails';
const OSCU_ENDPOINTS: readonly string[] = [INIT, ...SHARED_OPERATIONS, SALE, LOOKUP];
const KNOWN = new Set(OSCU_ENDPOINTS);

function header(headers: RequestHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined || one.trim() === '' ? null : one.trim();
}

/** The headers' pair when the call carries them, else the body's (init, or a client repeating them there). */
function keyOf(body: Body, headers: RequestHeaders): { tin: unknown; bhfId: unknown } {
  const tin = header(headers, 'tin');
  const bhfId = header(headers, 'bhfId');
  return tin !== null && bhfId !== null ? { tin, bhfId } : { tin: body.tin, bhfId: body.bhfId };
}

const json = (status: number, body: unknown): HttpAnswer => ({ status, contentType: 'application/json', body: JSON.stringify(body) });

/** The token endpoint: `GET /v1/token/generate?grant_type=client_credentials` with Basic credentials. */
function tokenEndpoint(method: string, path: string, headers: RequestHeaders, state: KraState): HttpAnswer | undefined {
  if (path !== '/v1/token/generate') return undefined;
  if (method !== 'GET') return json(405, { errorCode: '405', errorMessage: 'Method Not Allowed' });
  const basic = /^Basic\s+(.+)$/i.exec(header(headers, 'authorization') ?? '');
  const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':') : [];
  const oauth = state.settings.oauth;
  if (!id || !secret || (oauth && (id !== oauth.clientId || secret !== oauth.clientSecret))) {
    return json(400, { errorCode: '400.008.02', errorMessage: 'Invalid Authentication passed' });
  }
  return json(200, { access_token: oauth?.accessToken ?? 'simulated-access-token', expires_in: '3599' });
}

/** With the `oauth` setting: the call carries its Bearer token. */
function bearerOk(headers: RequestHeaders, state: KraState): boolean {
  const oauth = state.settings.oauth;
  return oauth === null || header(headers, 'authorization') === `Bearer ${oauth.accessToken}`;
}

export const kraOscu: SimulatorProfile<KraInstance> = {
  id: 'kra-oscu',
  endpointAt: (path) => {
    const name = (path.startsWith('/etims-api/') ? path.slice('/etims-api'.length) : path).slice(1);
    return KNOWN.has(name) ? name : undefined;
  },
  open: (options) =>
    openKra(
      {
        kind: 'OSCU',
        endpoints: OSCU_ENDPOINTS,
        saleEndpoint: SALE,
        deviceKeyOf: (body, headers) => {
          const { tin, bhfId } = keyOf(body, headers);
          return typeof tin === 'string' && KRA_TIN.test(tin) && typeof bhfId === 'string' && KRA_BHF_ID.test(bhfId)
            ? { tpin: tin, bhfId }
            : null;
        },
        unknownDevice: (body, headers) => {
          const { tin, bhfId } = keyOf(body, headers);
          if (tin === undefined || tin === null || bhfId === undefined || bhfId === null) return envelope('900');
          return typeof tin === 'string' && KRA_TIN.test(tin)
            ? param('bhfId', 'must be 2 characters')
            : param('tin', 'must be an 11-character KRA PIN');
        },
        beside: tokenEndpoint,
        answer: (endpoint, body, ctx, headers) => {
          if (!bearerOk(headers, ctx.state)) return { kind: 'unauthorized' };
          const record = ctx.device.record;
          if (endpoint === INIT) {
            return withFaults(
              endpoint,
              ctx,
              () => install(body, ctx, true) ?? ok({ info: { ...branchInfo(ctx.device), cmcKey: record.cmcKey } }),
            );
          }
          if (header(headers, 'tin') === null || header(headers, 'bhfId') === null || header(headers, 'cmcKey') === null)
            return envelope('900');
          // A key that is not the one this device was given (or a device never installed): not a valid device.
          if (!record.installed || header(headers, 'cmcKey') !== record.cmcKey) return envelope('901');
          if (endpoint === SALE) {
            return saleCall(endpoint, body, ctx, ['N'], (doc) => ({ ...doc.receipt }));
          }
          if (endpoint === LOOKUP) return withFaults(endpoint, ctx, () => invoiceDetails(body, ctx));
          return isShared(endpoint) ? withFaults(endpoint, ctx, () => handleShared(endpoint, body, ctx)) : envelope('999');
        },
      },
      options,
    ),
};
