// A KRA profile's own routes of the control API (under /_sim/profiles/kra-oscu or kra-vscu): the
// documents a device received and filed, the settings, and the feeds.
import type { ControlResult } from '../../core/profile.js';
import type { KraControl } from './control.js';

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

export function kraControlRoute(
  control: KraControl,
  method: string,
  parts: readonly string[],
  query: URLSearchParams,
  body: unknown,
): ControlResult | undefined {
  const route = `${method} /${parts.map((p, i) => (parts[0] === 'devices' && (i === 1 || i === 2) ? ':' : p)).join('/')}`;
  const [, tin = '', bhfId = ''] = parts;
  switch (route) {
    case 'GET /settings':
      return { status: 200, body: control.getSettings() };
    case 'PUT /settings':
      return { status: 200, body: control.setSettings(body) };
    case 'GET /devices/:/:/documents':
      return { status: 200, body: { documents: control.documents(tin, bhfId, { filedOnly: query.get('filed') === 'true' }) } };
    case 'GET /devices/:/:/filed':
      return { status: 200, body: { filed: control.filed(tin, bhfId) } };
    case 'POST /devices/:/:/imports':
      return { status: 201, body: { items: control.feed(tin, bhfId, 'imports', field(body, 'items')) } };
    case 'POST /devices/:/:/notices':
      return { status: 201, body: { notices: control.feed(tin, bhfId, 'notices', field(body, 'notices')) } };
    case 'POST /devices/:/:/purchases':
      return { status: 201, body: { sales: control.feed(tin, bhfId, 'purchaseSales', field(body, 'sales')) } };
    default:
      return undefined;
  }
}
