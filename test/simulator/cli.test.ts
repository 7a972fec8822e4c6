import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulatorArgs, runSimulatorCli, SimulatorCliError } from '@fiscal-gateway/simulator';

test('parses the simulator command line', () => {
  assert.deepEqual(parseSimulatorArgs([]), { port: 8081, json: false });
  assert.deepEqual(parseSimulatorArgs(['--port', '0', '--state-file=/tmp/s.json', '--context-path', '/zravsdc', '--json']), {
    port: 0,
    json: true,
    stateFile: '/tmp/s.json',
    contextPath: '/zravsdc',
  });
  assert.throws(() => parseSimulatorArgs(['--port', '70000']), SimulatorCliError);
  assert.throws(() => parseSimulatorArgs(['--port']), SimulatorCliError);
  assert.throws(() => parseSimulatorArgs(['--verbose']), SimulatorCliError);
});

test('runs the simulator and prints where it listens', async (t) => {
  const printed: string[] = [];
  t.mock.method(console, 'log', (line: string) => printed.push(line));
  const simulator = await runSimulatorCli(['--port', '0', '--json']);
  try {
    const announced = JSON.parse(printed[0] ?? '{}') as { url: string; control: string };
    assert.equal(announced.url, simulator.url);
    const health = await fetch(`${announced.control}/health`);
    assert.deepEqual(await health.json(), { ok: true });
  } finally {
    await simulator.close();
  }
});
