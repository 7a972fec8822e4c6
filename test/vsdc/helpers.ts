// Shared set-up for the VSDC client and simulator tests: a simulator on a free port, a client,
// and documents that the simulator accepts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.ts';
import { createVsdcClient, type DeviceTarget, type VsdcClient } from '../../src/vsdc/client.ts';
import type { SaleDocument } from '../../src/vsdc/sales-body.ts';

export interface World {
  sim: Simulator;
  client: VsdcClient;
  /** Target of a device that is already initialised. */
  target: DeviceTarget;
  sdcId: string;
  close(): Promise<void>;
}

let nextTpin = 1_000_000_100;

/** A fresh TPIN per call so tests sharing a simulator never share a device. */
export function freshTpin(): string {
  nextTpin += 1;
  return String(nextTpin);
}

export async function startWorld(options: SimulatorOptions & { timeoutMs?: number } = {}): Promise<World> {
  const { timeoutMs = 2_000, ...simOptions } = options;
  const sim = await startSimulator(simOptions);
  const client = createVsdcClient({ timeoutMs });
  const target: DeviceTarget = { baseUrl: sim.url, tpin: freshTpin(), bhfId: '000' };
  const init = await client.selectInitInfo(target, { dvcSrlNo: `SN-${target.tpin}` });
  if (init.kind !== 'ok') throw new Error(`device init failed: ${JSON.stringify(init)}`);
  return {
    sim,
    client,
    target,
    sdcId: init.data.info.sdcId,
    async close() {
      await client.close();
      await sim.close();
    },
  };
}

/** Another initialised device on the same simulator. */
export async function addDevice(world: World, bhfId = '000'): Promise<{ target: DeviceTarget; sdcId: string }> {
  const target: DeviceTarget = { baseUrl: world.sim.url, tpin: freshTpin(), bhfId };
  const init = await world.client.selectInitInfo(target, { dvcSrlNo: `SN-${target.tpin}-${bhfId}` });
  if (init.kind !== 'ok') throw new Error(`device init failed: ${JSON.stringify(init)}`);
  return { target, sdcId: init.data.info.sdcId };
}

export function sale(target: DeviceTarget, invoiceNo: number, overrides: Partial<SaleDocument> = {}): SaleDocument {
  return {
    tpin: target.tpin,
    bhfId: target.bhfId,
    invoiceNo,
    receiptType: 'S',
    customer: { tpin: null, name: 'Walk-in customer' },
    paymentMethod: '01',
    occurredAt: new Date(),
    taxInclusive: true,
    currency: 'ZMW',
    lines: [
      { name: 'Roller mealie meal 25kg', classificationCode: '50221200', itemCode: 'ZM2NTU0000001', quantity: 2, price: 185, vatCategory: 'A' },
      { name: 'Fresh bread', classificationCode: '50181901', itemCode: 'ZM2NTU0000002', quantity: 3, price: 24.5, vatCategory: 'D' },
    ],
    ...overrides,
  };
}

/** A plain HTTP server answering every request with a fixed status and body (real sockets). */
export async function startFixedServer(status: number, body: string, contentType = 'application/json'): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** JSON from the simulator's control API. */
export async function control(sim: Simulator, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${sim.origin}/_sim${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}
