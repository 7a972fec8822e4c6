import type { AppContext } from '../context.ts';
import type { Handshake } from './service.ts';

/** The device's life with its authority (initialise, verify), by its adapter, and the box its secrets are sealed with. */
export function authorityHandshake(ctx: AppContext): Handshake {
  return {
    box: ctx.secretBox,
    initialise: (device, serial) => ctx.authorities.of(device.profile).device.initialise(device, serial),
    verify: (device) => ctx.authorities.of(device.profile).device.verify(device),
  };
}
