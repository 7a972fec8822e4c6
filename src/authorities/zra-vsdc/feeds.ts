// Zambia's pulled feeds: each a `select…` call with `lastReqDt` (the cursor: the previous answer's
// `resultDt`), its list read into the port's records. What a VSDC sends is not always what the
// protocol says (received.ts): a record the gateway cannot key is left out.
import { parseVsdcDateTime, type ImportItem, type Notice, type Principal, type StockMovement } from '@fiscal-gateway/vsdc-protocol';
import type { SelectOutcome } from '../outcome.ts';
import type { AuthorityNotice, AuthorityPrincipal, FeedRead, FeedsPort, LedgerMove } from '../port/feeds.ts';
import type { Pulled } from '../port/outcomes.ts';
import type { DeviceTarget, VsdcClient } from './client.ts';
import { lastReqDtOf, targetOf } from './calls.ts';
import { receivedCustomsLine, receivedDecimal, receivedList, receivedText } from '../received.ts';
import { toSupplierSale } from './supplier-sales.ts';

/** `sarTyCd` (code class 12): `0x` brings stock in (+1), `1x` takes it out (−1); another code moves nothing. */
function directionOf(sarTyCd: string | null): 1 | -1 | 0 {
  if (sarTyCd === null || !/^\d{2}$/.test(sarTyCd)) return 0;
  return sarTyCd.startsWith('0') ? 1 : sarTyCd.startsWith('1') ? -1 : 0;
}

/** A movement of the ledger the gateway can key (a whole `sarNo` ≥ 0), with its readable lines; else undefined. */
export function toLedgerMove(raw: StockMovement): LedgerMove | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const sarNo = receivedDecimal(raw.sarNo);
  if (sarNo === null || !Number.isSafeInteger(sarNo) || sarNo < 0) return undefined;
  const type = receivedText(raw.sarTyCd);
  const sign = directionOf(type);
  const lines: LedgerMove['lines'] = [];
  for (const [index, line] of (Array.isArray(raw.itemList) ? raw.itemList : []).entries()) {
    if (line === null || typeof line !== 'object') continue;
    const itemCode = receivedText(line.itemCd);
    const quantity = receivedDecimal(line.qty);
    if (itemCode === null || quantity === null) continue;
    // Stored to 4 decimals, as the gateway's own quantities.
    lines.push({ seq: index + 1, itemCode, quantity: (sign * Math.abs(quantity)).toFixed(4) });
  }
  return { number: sarNo, type, lines, raw };
}

/** A principal the gateway can key (an `id`), or undefined. */
export function toPrincipal(raw: Principal): AuthorityPrincipal | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const id = receivedText(raw.id);
  if (id === null) return undefined;
  return {
    id,
    tpin: receivedText(raw.tpin),
    name: receivedText(raw.principalNm),
    address: receivedText(raw.principalAddress),
    email: receivedText(raw.principalEmail),
    tel: receivedText(raw.principalTelNo),
    accountNo: receivedText(raw.accountNo),
    raw,
  };
}

/** A notice the gateway can key (a whole `noticeNo`), or undefined. */
export function toNotice(raw: Notice): AuthorityNotice | undefined {
  const number = typeof raw.noticeNo === 'string' ? Number(String(raw.noticeNo).trim()) : raw.noticeNo;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) return undefined;
  return {
    number,
    title: receivedText(raw.title),
    content: receivedText(raw.cont),
    detailUrl: receivedText(raw.dtlUrl),
    registeredBy: receivedText(raw.regrNm),
    registeredAt: parseVsdcDateTime(receivedText(raw.regDt)),
    raw,
  };
}

type Select<D> = (target: DeviceTarget, payload: { lastReqDt: string }, options?: { signal?: AbortSignal }) => Promise<SelectOutcome<D>>;

/** A feed over one select call: its answer's list under `key`, each entry read by `read` (undefined: left out). */
function feed<D, R, T>(select: Select<D>, key: string, read: (raw: R) => T | undefined): FeedRead<T> {
  return async (device, cursor, options = {}): Promise<Pulled<T>> => {
    const outcome = await select(targetOf(device), { lastReqDt: lastReqDtOf(cursor) }, options.signal ? { signal: options.signal } : {});
    switch (outcome.kind) {
      case 'ok':
        return {
          kind: 'ok',
          records: receivedList<R>(outcome.data, key)
            .map(read)
            .filter((r) => r !== undefined),
          cursor: outcome.resultDt,
        };
      case 'empty':
        return { kind: 'empty', cursor: outcome.resultDt };
      case 'rejected':
        return { kind: 'rejected', code: outcome.code, message: outcome.message };
      case 'unreachable':
        return outcome;
    }
  };
}

export function feedsPort(client: VsdcClient): FeedsPort {
  return {
    customsLines: feed(
      (t, p, o) => client.selectImportItems(t, p, o),
      'itemList',
      (raw: ImportItem) => receivedCustomsLine(raw as unknown as Record<string, unknown>),
    ),
    supplierSales: feed((t, p, o) => client.selectTrnsPurchaseSales(t, p, o), 'saleList', toSupplierSale),
    stockLedger: feed((t, p, o) => client.selectStockItems(t, p, o), 'stockList', toLedgerMove),
    principals: feed((t, p, o) => client.selectPrincipals(t, p, o), 'taxpayerPrincipalList', toPrincipal),
    notices: feed((t, p, o) => client.selectNotices(t, p, o), 'noticeList', toNotice),
  };
}
