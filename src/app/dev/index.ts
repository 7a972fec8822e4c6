// The development start: `serve` with GATEWAY_ENV=development (the default) also runs the
// built-in VSDC simulator on HOST:SIMULATOR_PORT (unless BUILTIN_SIMULATOR=0) and, on an empty
// database, provisions a demo merchant on it, then prints a ready-to-run sale request. main.ts
// imports it only in development and hands it to `serve` (ServeOptions.developmentStart), which
// runs it before the workers start: a busy SIMULATOR_PORT stops the start (exit 3) before any
// document is filed to whatever holds the port.
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { portProblem } from '../../platform/lib/ports.ts';
import { announceBuiltinSimulator } from '../../domain/kernel/devices/builtin-simulator.ts';
import type { RunningGateway } from '../server.ts';
import {
  adoptUnnamedFiles,
  databaseFiles,
  databaseIsEmpty,
  demoInstructions,
  demoWorksOn,
  forgetDatabaseFiles,
  provisionDemo,
  readDemoCredentials,
  type DemoCredentials,
} from './demo.ts';

export async function developmentStart(gateway: RunningGateway): Promise<(() => Promise<void>) | void> {
  const { ctx, url } = gateway;
  const { config } = ctx;
  if (!config.builtinSimulator || !url) return;
  const say = (text: string) => process.stdout.write(`${text}\n`);

  // The demo and the simulator's devices belong to this database: its own files, or none yet.
  const files = await databaseFiles(ctx);
  const empty = await databaseIsEmpty(ctx);
  if (empty) forgetDatabaseFiles(files);
  else await adoptUnnamedFiles(ctx, files);

  // On HOST, as the API: HOST=0.0.0.0 (a container) makes both reachable from outside.
  let simulator: Simulator;
  try {
    simulator = await startSimulator({ port: config.simulatorPort, host: config.host, stateFile: files.simulator });
  } catch (err) {
    throw (
      portProblem(
        err,
        'SIMULATOR_PORT',
        config.host,
        config.simulatorPort,
        'stop what holds it, set SIMULATOR_PORT to a free port, or BUILTIN_SIMULATOR=0 to start without the built-in simulator',
      ) ?? err
    );
  }
  say(`built-in VSDC simulator on ${simulator.url} (control API ${simulator.origin}/_sim)`);
  announceBuiltinSimulator(ctx, simulator.url);

  try {
    let demo: DemoCredentials | undefined;
    if (empty) demo = await provisionDemo(ctx, simulator.url, files.demo, simulator.urlOf('kra-oscu'));
    else {
      const onFile = readDemoCredentials(files.demo);
      if (onFile && (await demoWorksOn(ctx, onFile))) demo = onFile;
      else if (onFile) say(`no demo merchant: the credentials in ${files.demo} no longer work on this database (revoked or deleted)`);
      else say('no demo merchant: this database already had data at its first development start (the demo is made on an empty database)');
    }
    if (demo) {
      if (demo.vsdcBaseUrl !== simulator.url)
        say(`note: the demo device files to ${demo.vsdcBaseUrl}, but the simulator now runs on ${simulator.url}`);
      say(demoInstructions(url, demo, files.demo, simulator.url, demo.kenya ? simulator.urlOf('kra-oscu') : undefined));
    }
  } catch (err) {
    say(`demo data not provisioned: ${(err as Error).message}`);
  }
  return () => simulator.close();
}
