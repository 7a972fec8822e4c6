// The development start: `serve` with GATEWAY_ENV=development (the default) also runs the
// built-in VSDC simulator on SIMULATOR_PORT (unless BUILTIN_SIMULATOR=0) and, on an empty
// database, provisions a demo merchant on it, then prints a ready-to-run sale request. main.ts
// imports it only in development and hands it to `serve` (ServeOptions.developmentStart).
import { basename, dirname, resolve } from 'node:path';
import type { RunningGateway } from '../server.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { databaseIsEmpty, demoCredentialsPath, demoInstructions, provisionDemo, readDemoCredentials } from './demo.ts';

/** Simulator devices and receipts survive restarts beside the data directory, like the demo. */
function simulatorStatePath(dataDir: string): string {
  const abs = resolve(dataDir);
  return resolve(dirname(abs), `.${basename(abs)}.simulator.json`);
}

export async function developmentStart(gateway: RunningGateway): Promise<(() => Promise<void>) | void> {
  const { ctx, url } = gateway;
  const { config } = ctx;
  if (!config.builtinSimulator || !url) return;
  const say = (text: string) => process.stdout.write(`${text}\n`);

  let simulator: Simulator;
  try {
    simulator = await startSimulator({ port: config.simulatorPort, host: '127.0.0.1', stateFile: simulatorStatePath(config.dataDir) });
  } catch (err) {
    say(`built-in VSDC simulator not started on port ${config.simulatorPort}: ${(err as Error).message} (set SIMULATOR_PORT, or BUILTIN_SIMULATOR=0)`);
    return;
  }
  say(`built-in VSDC simulator on ${simulator.url} (control API ${simulator.origin}/_sim)`);

  try {
    let demo = readDemoCredentials(config.dataDir);
    if (await databaseIsEmpty(ctx)) demo = await provisionDemo(ctx, simulator.url);
    if (demo) {
      if (demo.vsdcBaseUrl !== simulator.url) say(`note: the demo device files to ${demo.vsdcBaseUrl}, but the simulator now runs on ${simulator.url}`);
      say(demoInstructions(url, demo, demoCredentialsPath(config.dataDir), simulator.url));
    }
  } catch (err) {
    say(`demo data not provisioned: ${(err as Error).message}`);
  }
  return () => simulator.close();
}
