// Shared set-up for the VSDC client and simulator tests: a simulator on a free port, a client,
// and documents that the simulator accepts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type Simulator, type SimulatorOptions } from '@fiscal-gateway/simulator';
import {
  formatVsdcDate,
  formatVsdcDateTime,
  PURCHASE_STATUS,
  STOCK_MOVEMENT_TYPES,
  type SaveItemRequest,
  type SavePurchaseRequest,
  type SaveStockItemsRequest,
  type StockItemLine,
} from '@fiscal-gateway/vsdc-protocol';
import { createVsdcClient, type DeviceTarget, type VsdcClient } from '../../../src/authorities/zra-vsdc/client.ts';
import type { ZraSaleDocument } from '../../../src/authorities/zra-vsdc/sales-body.ts';

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

export function sale(target: DeviceTarget, invoiceNo: number, overrides: Partial<ZraSaleDocument> = {}): ZraSaleDocument {
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
      {
        name: 'Roller mealie meal 25kg',
        classificationCode: '50221200',
        itemCode: 'ZM2NTU0000001',
        quantity: 2,
        price: 185,
        vatCategory: 'A',
      },
      { name: 'Fresh bread', classificationCode: '50181901', itemCode: 'ZM2NTU0000002', quantity: 3, price: 24.5, vatCategory: 'D' },
    ],
    ...overrides,
  };
}

/** A plain HTTP server answering every request with a fixed status and body (real sockets). */
export async function startFixedServer(
  status: number,
  body: string,
  contentType = 'application/json',
): Promise<{ url: string; close(): Promise<void> }> {
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

const ACTOR = { regrId: 'gw', regrNm: 'gateway', modrId: 'gw', modrNm: 'gateway' };

/** Registers an item on the device (saveItem); stock calls only accept registered item codes. */
export async function registerItem(
  world: World,
  target: DeviceTarget,
  itemCd: string,
  overrides: Partial<SaveItemRequest> = {},
): Promise<SaveItemRequest> {
  const item: SaveItemRequest = {
    itemCd,
    itemClsCd: '50151513',
    itemTyCd: '2',
    itemNm: `Cooking oil ${itemCd}`,
    orgnNatCd: 'ZM',
    pkgUnitCd: 'NT',
    qtyUnitCd: 'U',
    vatCatCd: 'A',
    dftPrc: 116,
    useYn: 'Y',
    ...ACTOR,
    ...overrides,
  };
  const outcome = await world.client.saveItem(target, item);
  if (outcome.kind !== 'ok') throw new Error(`saveItem failed: ${JSON.stringify(outcome)}`);
  return item;
}

/** A stock movement the simulator accepts: `qty` of each item at 116 (VAT-inclusive, category A). */
export function stockMovement(
  sarNo: number,
  itemCds: readonly string[],
  overrides: Partial<SaveStockItemsRequest> = {},
): SaveStockItemsRequest {
  const itemList: StockItemLine[] = itemCds.map((itemCd, index) => ({
    itemSeq: index + 1,
    itemCd,
    itemClsCd: '50151513',
    itemNm: `Cooking oil ${itemCd}`,
    bcd: null,
    pkgUnitCd: 'NT',
    pkg: 5,
    qtyUnitCd: 'U',
    qty: 5,
    itemExprDt: null,
    prc: 116,
    splyAmt: 580,
    totDcAmt: 0,
    taxblAmt: 500,
    vatCatCd: 'A',
    vatAmt: 80,
    taxAmt: 80,
    totAmt: 580,
  }));
  return {
    sarNo,
    orgSarNo: 0,
    regTyCd: 'M',
    custTpin: null,
    custNm: null,
    custBhfId: null,
    sarTyCd: STOCK_MOVEMENT_TYPES.adjustmentIn,
    ocrnDt: formatVsdcDate(new Date()),
    totItemCnt: itemList.length,
    totTaxblAmt: 500 * itemList.length,
    totTaxAmt: 80 * itemList.length,
    totAmt: 580 * itemList.length,
    remark: null,
    ...ACTOR,
    itemList,
    ...overrides,
  };
}

/** The buyer's answer to a pulled purchase (or, with `regTyCd: 'M'`, a purchase entered by hand). */
export function purchaseAnswer(
  invcNo: number,
  sale: { spplrTpin: string; spplrBhfId: string; spplrNm: string; spplrInvcNo: number },
  overrides: Partial<SavePurchaseRequest> = {},
): SavePurchaseRequest {
  return {
    invcNo,
    orgInvcNo: 0,
    spplrTpin: sale.spplrTpin,
    spplrBhfId: sale.spplrBhfId,
    spplrNm: sale.spplrNm,
    spplrInvcNo: sale.spplrInvcNo,
    regTyCd: 'A',
    pchsTyCd: 'N',
    rcptTyCd: 'P',
    pmtTyCd: '01',
    pchsSttsCd: PURCHASE_STATUS.approved,
    cfmDt: formatVsdcDateTime(new Date()),
    pchsDt: formatVsdcDate(new Date()),
    totItemCnt: 1,
    totTaxblAmt: 1000,
    totTaxAmt: 160,
    totAmt: 1160,
    ...ACTOR,
    itemList: [
      {
        itemSeq: 1,
        itemCd: 'ZM2NTU0009000',
        itemClsCd: '50151513',
        itemNm: 'Cooking oil 5L',
        pkgUnitCd: 'NT',
        pkg: 10,
        qtyUnitCd: 'U',
        qty: 10,
        prc: 116,
        splyAmt: 1160,
        dcRt: 0,
        dcAmt: 0,
        taxblAmt: 1000,
        vatCatCd: 'A',
        vatAmt: 160,
        taxAmt: 160,
        totAmt: 1160,
      },
    ],
    ...overrides,
  };
}

/** One call of ZRA's client straight to a VSDC, beside the gateway's (a test acting as another system). */
export async function directVsdcCall<T>(call: (client: VsdcClient) => Promise<T>): Promise<T> {
  const client = createVsdcClient({ timeoutMs: 5_000 });
  try {
    return await call(client);
  } finally {
    await client.close();
  }
}
