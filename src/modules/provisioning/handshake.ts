import type { AppContext } from '../../context.ts';
import type { Handshake } from './devices.ts';

/** Adapts the VSDC client's selectInitInfo to the provisioning rules. */
export function vsdcHandshake(_ctx: AppContext): Handshake {
  return async () => ({ kind: 'unreachable', reason: 'VSDC client not wired yet' });
}
