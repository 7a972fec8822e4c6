// `fiscal-gateway simulator …`: the simulator package's command line, with the gateway's exit
// code for a port that is taken (a configuration error, exit 3, one line naming --port).
import { parseSimulatorArgs, serveSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { portProblem } from '../../platform/lib/ports.ts';

export async function simulatorCommand(args: readonly string[]): Promise<Simulator> {
  const options = parseSimulatorArgs(args);
  try {
    return await serveSimulator(options);
  } catch (err) {
    throw portProblem(err, '--port', options.host ?? '127.0.0.1', options.port ?? 0, 'choose another --port') ?? err;
  }
}
