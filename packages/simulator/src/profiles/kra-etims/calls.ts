// What both KRA profiles do with a call once the device is known: the fault switches a call
// takes (reject, loseReplies), installing a device, filing a sale (every arrival logged as a
// received document) and finding a filed one.
import { randomBytes } from 'node:crypto';
import { takeLostReply, takeRejection } from '../../core/faults.js';
import { kenyaDateTime, kenyaDisplayDateTime, parseKraDate } from './codes.js';
import type { KraDevice, KraFiledDocument, KraReceipt } from './device.js';
import { handleShared, SHARED_OPERATIONS, type SharedOperation } from './endpoints.js';
import { envelope, ok, param, required, stripCredentials, type Body, type KraContext, type KraEnvelope } from './replies.js';
import { fileSale, kraInteger } from './sales.js';

/** Applies the reject switch, runs the call, then the loseReplies switch on a success. */
export function withFaults(endpoint: string, ctx: KraContext, run: () => KraEnvelope): KraEnvelope {
  const forced = takeRejection(ctx.device.faults, endpoint);
  if (forced) return envelope(forced.code, null, forced.message);
  const reply = run();
  if (reply.resultCd !== '000') return reply;
  return takeLostReply(ctx.device.faults, endpoint) ? { ...reply, loseReply: true } : reply;
}

export function isShared(op: string): op is SharedOperation {
  return (SHARED_OPERATIONS as readonly string[]).includes(op);
}

export { handleShared };

/** Installs the device with this serial, or the refusal: 902 when installed, 901 for a serial that is unknown or installed elsewhere. */
export function install(body: Body, ctx: KraContext, withCmcKey: boolean): KraEnvelope | null {
  const missing = required(body, ['dvcSrlNo']);
  if (missing) return missing;
  const serial = String(body.dvcSrlNo);
  if (serial.length > 100) return param('dvcSrlNo', 'must be at most 100 characters');
  const record = ctx.device.record;
  if (record.installed) return envelope('902');
  const holder = ctx.state.deviceWithSerial(serial);
  if (ctx.state.settings.unknownSerials.includes(serial) || (holder && holder !== ctx.device)) return envelope('901');
  if (record.sdcId === null || record.mrcNo === null) Object.assign(record, ctx.state.allocateIdentity());
  record.installed = true;
  record.dvcSrlNo = serial;
  record.installedAt = kenyaDateTime(ctx.now);
  if (withCmcKey) record.cmcKey = randomBytes(24).toString('hex').toUpperCase();
  ctx.state.changed();
  return null;
}

/** The taxpayer and branch part of an init reply. */
export function branchInfo(device: KraDevice): Record<string, unknown> {
  const r = device.record;
  const taxpayer = r.tpin;
  return {
    tin: taxpayer,
    taxprNm: r.taxprNm,
    bsnsActv: null,
    bhfId: r.bhfId,
    bhfNm: r.bhfNm,
    bhfOpenDt: r.installedAt?.slice(0, 8) ?? null,
    prvncNm: 'NAIROBI CITY',
    dstrtNm: 'NAIROBI',
    sctrNm: 'CBD',
    locDesc: null,
    hqYn: r.bhfId === '00' ? 'Y' : 'N',
    mgrNm: null,
    mgrTelNo: null,
    mgrEmail: null,
    dvcId: r.dvcSrlNo,
    sdcId: r.sdcId,
    mrcNo: r.mrcNo,
  };
}

/** Files a sale (after the reject switch), logging the arrival with its outcome; `present` shapes the reply's data. */
export function saleCall(
  endpoint: string,
  body: Body,
  ctx: KraContext,
  salesTypes: readonly string[],
  present: (doc: KraFiledDocument) => unknown,
): KraEnvelope {
  const record = ctx.device.record;
  const arrival = {
    seq: record.received.length + 1,
    receivedAt: kenyaDateTime(ctx.now),
    invcNo: kraInteger(body.invcNo, 0),
    rcptTyCd: typeof body.rcptTyCd === 'string' ? body.rcptTyCd : null,
    body: structuredClone(body),
  };
  const settle = (reply: KraEnvelope, receipt: KraReceipt | null): KraEnvelope => {
    record.received.push({
      ...arrival,
      resultCd: reply.resultCd,
      resultMsg: reply.resultMsg,
      receipt,
      replyLost: reply.loseReply === true,
    });
    ctx.state.changed();
    return reply;
  };
  const forced = takeRejection(ctx.device.faults, endpoint);
  if (forced) return settle(envelope(forced.code, null, forced.message), null);
  const outcome = fileSale(ctx.device, stripCredentials(body), ctx.state.settings, ctx.now, salesTypes);
  if (outcome.kind === 'refused') return settle(envelope(outcome.code, null, outcome.message), null);
  const reply = ok(present(outcome.doc));
  return settle(takeLostReply(ctx.device.faults, endpoint) ? { ...reply, loseReply: true } : reply, outcome.doc.receipt);
}

/** A filed document as selectInvoiceDetails gives it: the sale as sent, its receipt extended. */
export function invoiceDetails(body: Body, ctx: KraContext): KraEnvelope {
  const invcNo = kraInteger(body.invcNo, 1);
  if (invcNo === null) return param('invcNo', 'must be a whole number ≥ 1');
  const doc = ctx.device.filedByInvcNo.get(invcNo);
  if (!doc) return envelope('001');
  const sent = doc.body.receipt;
  const at = parseKraDate(doc.receipt.sdcDateTime, true)!;
  const receipt = {
    ...(typeof sent === 'object' && sent !== null ? sent : {}),
    curRcptNo: doc.receipt.curRcptNo,
    totRcptNo: doc.receipt.totRcptNo,
    intrlData: doc.receipt.intrlData,
    rcptSign: doc.receipt.rcptSign,
    // The digits are already Nairobi time: shift back so the formatter's +3 h lands on them.
    sdcDateTime: kenyaDisplayDateTime(new Date(at.getTime() - 3 * 3_600_000)),
  };
  return ok({ salesList: [{ ...doc.body, invcNo: doc.invcNo, receipt }] });
}
