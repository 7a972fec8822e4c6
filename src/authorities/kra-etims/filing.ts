// The device's life with KRA (initialisation, the check of a unit handed over) and filing: a sale
// or credit note, the lookup of one KRA already holds, and the probe.
import type { DevicePort, Initialisation } from '../port/device.ts';
import type { FileOutcome, FilingPort, FindOutcome } from '../port/filing.ts';
import type { KraClient, KraOutcome } from './client.ts';
import { buildKraSaleBody, kraCount, readFiledSale, readKraReceipt } from './sales-body.ts';
import type { KraSettings } from './settings.ts';
import { formatKraDateTime } from './wire.ts';

function text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** What a read proves of the device: it answered and took the call (an empty answer is an answer). */
function verified(
  outcome: KraOutcome,
): { kind: 'ok' } | { kind: 'rejected'; code: string; message: string } | Extract<KraOutcome, { kind: 'unreachable' }> {
  switch (outcome.kind) {
    case 'unreachable':
      return outcome;
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'ok':
    case 'empty':
      return { kind: 'ok' };
    default:
      return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
  }
}

export function kraDevicePort(client: KraClient, now: () => Date): DevicePort {
  return {
    // OSCU answers `data.info {sdcId, mrcNo, cmcKey, …}` and keeps no counters; the VSCU jar's
    // answer may carry its counters (at `data.info` or at `data`), which the sequences continue from.
    // Its `invcNo` is one sequence across kinds (`lastInvcNo`, which clients continue from): the
    // sales sequence continues after the highest number the jar holds.
    async initialise(device, serial, options): Promise<Initialisation> {
      const outcome = await client.selectInitOsdcInfo(device, { dvcSrlNo: serial }, options);
      switch (outcome.kind) {
        case 'ok': {
          const data = (outcome.data ?? {}) as Record<string, unknown>;
          const info = (typeof data.info === 'object' && data.info !== null ? data.info : data) as Record<string, unknown>;
          const sdcId = text(info.sdcId);
          if (sdcId === null)
            return {
              kind: 'unreachable',
              reason: 'bad_success_body',
              detail: `resultCd ${outcome.resultCd} but data.info.sdcId is missing`,
            };
          return {
            kind: 'ok',
            device: {
              sdcId,
              mrcNo: text(info.mrcNo) ?? '',
              taxpayerName: text(info.taxprNm),
              branchName: text(info.bhfNm),
              lastSaleInvoiceNo: Math.max(kraCount(info.lastInvcNo) ?? 0, kraCount(info.lastSaleInvcNo) ?? 0),
              lastPurchaseInvoiceNo: kraCount(info.lastPchsInvcNo),
              lastSaleReceiptNo: kraCount(info.lastSaleRcptNo),
              lastTrainingInvoiceNo: kraCount(info.lastTrainInvcNo),
              lastProformaInvoiceNo: kraCount(info.lastProfrmInvcNo),
              unitKey: text(info.cmcKey),
            },
          };
        }
        case 'already_installed':
          return { kind: 'already_installed', message: outcome.resultMsg };
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        case 'unreachable':
          return outcome;
        default:
          return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
      }
    },
    // The code tables changed since now, asked with the device's key: KRA refuses a wrong key (900s).
    async verify(device, options = {}) {
      return verified(await client.selectCodeList(device, { lastReqDt: formatKraDateTime(now()) }, options));
    },
  };
}

function fileOutcomeOf(outcome: KraOutcome): Exclude<FileOutcome, { kind: 'ok' }> | null {
  switch (outcome.kind) {
    case 'ok':
      return null;
    case 'duplicate':
      return { kind: 'duplicate', code: outcome.resultCd, message: outcome.resultMsg };
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return outcome;
    default:
      return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
  }
}

export function kraFilingPort(client: KraClient, settings: KraSettings, now: () => Date): FilingPort {
  return {
    async file(device, doc, options = {}): Promise<FileOutcome> {
      const body = buildKraSaleBody(client.protocol, settings, doc);
      const callOptions = options.signal ? { signal: options.signal } : {};
      let outcome = await client.saveTrnsSalesOsdc(device, body, callOptions);
      // The disputed VSCU variant: the sale's transaction first, then its invoice for the receipt.
      if (outcome.kind === 'ok' && client.protocol === 'vscu' && settings.twoCallSale)
        outcome = await client.saveInvoice(device, body, callOptions);
      const other = fileOutcomeOf(outcome);
      if (other !== null || outcome.kind !== 'ok') return other!;
      const receipt = readKraReceipt(outcome.data, device, outcome.resultDt, now());
      if (typeof receipt === 'string')
        return {
          kind: 'unreachable',
          reason: 'bad_success_body',
          detail: `resultCd ${outcome.resultCd} but ${receipt}`,
          resultCd: outcome.resultCd,
        };
      return { kind: 'ok', receipt };
    },
    async findFiled(device, doc, options = {}): Promise<FindOutcome> {
      const body =
        client.protocol === 'vscu' && doc.salesType !== 'normal'
          ? { invcNo: doc.invoiceNo, salesTyCd: doc.salesType === 'training' ? 'T' : 'P' }
          : { invcNo: doc.invoiceNo };
      const outcome = await client.selectInvoiceDetails(device, body, options.signal ? { signal: options.signal } : {});
      switch (outcome.kind) {
        case 'ok': {
          const filed = readFiledSale(outcome.data, doc.invoiceNo);
          if (typeof filed === 'string') return { kind: 'unreadable', problem: filed };
          const receipt = readKraReceipt(filed.receipt, device, outcome.resultDt, now());
          if (typeof receipt === 'string') return { kind: 'unreadable', problem: receipt };
          if (filed.total === null) return { kind: 'unreadable', problem: 'totAmt is missing' };
          return { kind: 'ok', receipt, total: filed.total };
        }
        case 'empty':
          return { kind: 'empty' };
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        case 'unreachable':
          return outcome;
        default:
          return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
      }
    },
    // The code tables changed since now: a small answer, and nothing filed.
    async probe(device, at, options = {}) {
      const outcome = await client.selectCodeList(
        device,
        { lastReqDt: formatKraDateTime(at) },
        options.signal ? { signal: options.signal } : {},
      );
      return outcome.kind === 'unreachable' ? outcome : { kind: 'answered' };
    },
  };
}
