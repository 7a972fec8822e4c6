// KRA's OSCU (the online sales control unit KRA hosts) as a simulator profile: flat paths under
// the base, served both as `/etims-api/<name>` and `/<name>`; init keyed by the body, every other
// call by the `tin`, `bhfId` and `cmcKey` headers; `Authorization` ignored.
import type { RequestHeaders, SimulatorProfile } from '../../core/profile.js';
import { branchInfo, handleShared, install, invoiceDetails, isShared, saleCall, withFaults } from './calls.js';
import { SHARED_OPERATIONS } from './endpoints.js';
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
          return typeof tin === 'string' && KRA_TIN.test(tin) && typeof bhfId === 'string' && KRA_BHF_ID.test(bhfId) ? { tpin: tin, bhfId } : null;
        },
        unknownDevice: (body, headers) => {
          const { tin, bhfId } = keyOf(body, headers);
          if (tin === undefined || tin === null || bhfId === undefined || bhfId === null) return envelope('900');
          return typeof tin === 'string' && KRA_TIN.test(tin) ? param('bhfId', 'must be 2 characters') : param('tin', 'must be an 11-character KRA PIN');
        },
        answer: (endpoint, body, ctx, headers) => {
          const record = ctx.device.record;
          if (endpoint === INIT) {
            return withFaults(endpoint, ctx, () => install(body, ctx, true) ?? ok({ info: { ...branchInfo(ctx.device), cmcKey: record.cmcKey } }));
          }
          if (header(headers, 'tin') === null || header(headers, 'bhfId') === null || header(headers, 'cmcKey') === null) return envelope('900');
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
