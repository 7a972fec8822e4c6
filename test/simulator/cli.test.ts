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
  assert.deepEqual(parseSimulatorArgs(['--authority', 'kra']), { port: 8081, json: false, defaultProfile: 'kra-oscu' });
  assert.deepEqual(parseSimulatorArgs(['--authority=kra-vscu']), { port: 8081, json: false, defaultProfile: 'kra-vscu' });
  assert.deepEqual(parseSimulatorArgs(['--authority', 'zra']), { port: 8081, json: false });
  assert.throws(() => parseSimulatorArgs(['--authority', 'rra']), /--authority must be zra, kra/);
});

test("--authority kra: the root URLs and /_sim are the OSCU's, the ZRA profile stays at /zra-vsdc", async (t) => {
  t.mock.method(console, 'log', () => undefined);
  const simulator = await runSimulatorCli(['--port', '0', '--authority', 'kra']);
  try {
    assert.equal(simulator.url, simulator.origin);
    const init = await fetch(`${simulator.url}/etims-api/selectInitOsdcInfo`, {
      method: 'POST',
      body: JSON.stringify({ tin: 'P051234567X', bhfId: '00', dvcSrlNo: 'cli' }),
    });
    const reply = (await init.json()) as { resultCd: string; data: { info: { cmcKey: string } } };
    assert.equal(reply.resultCd, '000');
    const devices = (await (await fetch(`${simulator.origin}/_sim/devices`)).json()) as { devices: { tin: string }[] };
    assert.deepEqual(
      devices.devices.map((d) => d.tin),
      ['P051234567X'],
    );
    const zra = await fetch(`${simulator.urlOf('zra-vsdc')}/code/selectCodes`, {
      method: 'POST',
      body: JSON.stringify({ tpin: '1000000000', bhfId: '000', lastReqDt: '20000101000000' }),
    });
    assert.equal(((await zra.json()) as { resultCd: string }).resultCd, '000');
  } finally {
    await simulator.close();
  }
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
