import type { AppContext } from '../context.ts';
import type { Handshake } from './service.ts';

/** The initialisation handshake of a device, by its authority's adapter. */
export function authorityHandshake(ctx: AppContext): Handshake {
  return (device, serial) => ctx.authorities.of(device.profile).device.initialise(device, serial);
}
