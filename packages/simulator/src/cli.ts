// `fiscal-gateway simulator [--port N] [--host H] [--state-file F] [--context-path /x] [--authority zra|kra|<profile id>] [--json]`
// (the gateway's command, src/app/cli/simulator.ts, adds its exit code for a busy port).
import { DEFAULT_PROFILE, PROFILES } from './profiles/index.js';
import { startSimulator, type Simulator, type SimulatorOptions } from './server.js';

/** `--authority`: the profile its root URLs answer as (every profile is served under `/<id>` anyway). */
const AUTHORITY_PROFILES: Record<string, string> = { zra: 'zra-vsdc', kra: 'kra-oscu' };

export class SimulatorCliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulatorCliError';
  }
}

export type SimulatorCliOptions = SimulatorOptions & { json: boolean };

export function parseSimulatorArgs(args: readonly string[]): SimulatorCliOptions {
  const options: SimulatorCliOptions = { port: 8081, json: false };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === '') throw new SimulatorCliError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--port': {
        const port = Number(value());
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SimulatorCliError('--port must be 0–65535');
        options.port = port;
        break;
      }
      case '--host':
        options.host = value();
        break;
      case '--state-file':
        options.stateFile = value();
        break;
      case '--context-path':
        options.contextPath = value();
        break;
      case '--authority': {
        const authority = value();
        const profile = AUTHORITY_PROFILES[authority] ?? (PROFILES.some((p) => p.id === authority) ? authority : undefined);
        if (profile === undefined)
          throw new SimulatorCliError(`--authority must be zra, kra or a profile (${PROFILES.map((p) => p.id).join(', ')})`);
        if (profile !== DEFAULT_PROFILE.id) options.defaultProfile = profile;
        break;
      }
      case '--json':
        options.json = true;
        break;
      default:
        throw new SimulatorCliError(`unknown option ${arg}`);
    }
  }
  return options;
}

/** Starts the simulator in the foreground until SIGINT/SIGTERM; resolves with the running handle. */
export async function runSimulatorCli(args: readonly string[]): Promise<Simulator> {
  return serveSimulator(parseSimulatorArgs(args));
}

/** `runSimulatorCli` with its arguments parsed: a failed listen rejects with the listen error. */
export async function serveSimulator({ json, ...options }: SimulatorCliOptions): Promise<Simulator> {
  const simulator = await startSimulator(options);
  if (json) {
    console.log(
      JSON.stringify({
        url: simulator.url,
        control: `${simulator.origin}/_sim`,
        port: simulator.port,
        stateFile: options.stateFile ?? null,
      }),
    );
  } else if (options.defaultProfile !== undefined) {
    console.log(`authority simulator listening on ${simulator.url} (${options.defaultProfile})`);
    for (const profile of PROFILES)
      console.log(`  ${profile.id}: ${simulator.urlOf(profile.id)}, control API at ${simulator.origin}/_sim/profiles/${profile.id}`);
  } else {
    console.log(`VSDC simulator listening on ${simulator.url}`);
    console.log(`  use it as a device's vsdcBaseUrl; control API at ${simulator.origin}/_sim (see docs/vsdc.md)`);
    if (options.stateFile) console.log(`  state persisted to ${options.stateFile}`);
  }
  const shutdown = (): void => {
    simulator.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return {
    ...simulator,
    async close() {
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      await simulator.close();
    },
  };
}
