// ZRA's own routes of the control API (docs/vsdc.md): the documents a device filed, and the
// feeds the authority publishes (imports, notices, principals, purchases, the RRP feed).
import type { ControlResult } from '../../core/profile.js';
import type { SimulatorControl } from './control.js';

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

export function zraControlRoute(
  control: SimulatorControl,
  method: string,
  parts: readonly string[],
  query: URLSearchParams,
  body: unknown,
): ControlResult | undefined {
  const route = `${method} /${parts.map((p, i) => (parts[0] === 'devices' && (i === 1 || i === 2 || (i === 4 && parts[3] === 'documents')) ? ':' : p)).join('/')}`;
  const [, tpin = '', bhfId = ''] = parts;
  switch (route) {
    case 'GET /devices/:/:/documents':
      return { status: 200, body: { documents: control.documents(tpin, bhfId, { filedOnly: query.get('filed') === 'true' }) } };
    case 'PATCH /devices/:/:/documents/:': {
      const altered = control.alterFiled(tpin, bhfId, parts[4] ?? '', body ?? {});
      return altered
        ? { status: 200, body: altered }
        : { status: 404, body: { error: 'not_found', message: `no filed document ${parts[4]} on ${tpin}/${bhfId}` } };
    }
    case 'POST /devices/:/:/imports':
      return { status: 201, body: { items: control.feedImports(tpin, bhfId, field(body, 'items')) } };
    case 'POST /devices/:/:/notices':
      return { status: 201, body: { notices: control.feedNotices(tpin, bhfId, field(body, 'notices')) } };
    case 'POST /devices/:/:/principals':
      return { status: 201, body: { principals: control.feedPrincipals(tpin, bhfId, field(body, 'principals')) } };
    case 'POST /devices/:/:/purchases':
      return { status: 201, body: { purchases: control.feedPurchases(tpin, bhfId, field(body, 'purchases')) } };
    case 'GET /rrp-items':
      return { status: 200, body: { items: control.listRrpItems() } };
    case 'POST /rrp-items':
      return { status: 201, body: { items: control.feedRrpItems(field(body, 'items')) } };
    default:
      return undefined;
  }
}
