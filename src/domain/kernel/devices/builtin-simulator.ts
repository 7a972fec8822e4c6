// The built-in VSDC simulator's address, for the device form's hint (docs/decisions.md):
// only the development start (src/app/dev/index.ts) knows it, once the simulator listens, and it
// tells it here; the devices list hands it to the console only while the gateway runs in
// development. A production gateway, or one started with BUILTIN_SIMULATOR=0, never has one.
import type { AppContext, ContextMember } from '../context.ts';

interface BuiltinSimulator {
  url: string | undefined;
}

export const BUILTIN_SIMULATOR: ContextMember<BuiltinSimulator> = {
  name: 'devices.builtin-simulator',
  create: () => ({ url: undefined }),
};

/** Called by the development start once the built-in simulator listens at `url`. */
export function announceBuiltinSimulator(ctx: AppContext, url: string): void {
  ctx.members.get(BUILTIN_SIMULATOR).url = url;
}

/** The built-in simulator's `vsdcBaseUrl` in development; null otherwise. */
export function builtinSimulatorUrl(ctx: AppContext): string | null {
  if (ctx.config.env !== 'development' || !ctx.config.builtinSimulator) return null;
  return ctx.members.get(BUILTIN_SIMULATOR).url ?? null;
}
