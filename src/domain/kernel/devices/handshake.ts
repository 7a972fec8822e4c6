import type { AppContext } from '../context.ts';
import { unreachableCause } from '../../../authorities/outcome.ts';
import type { Handshake } from './service.ts';

/**
 * A counter of a real `selectInitInfo` answer: a whole number ≥ 0 (as a number or its text), or
 * null when the VSDC sends none (`null`, `""`, or something that is not a count).
 */
function counter(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * Adapts the VSDC client's selectInitInfo to the provisioning rules. Reads only what it needs
 * from a real answer (`sdcId`, the space-padded `mrcNo`, the names and counters, any of which
 * may be null) and tolerates the rest (`tin`, `bsnsActv`, `lastTrainInvcNo`, …).
 */
export function vsdcHandshake(ctx: AppContext): Handshake {
  return async (target, deviceSerial) => {
    const outcome = await ctx.vsdc.selectInitInfo(target, { dvcSrlNo: deviceSerial });
    switch (outcome.kind) {
      case 'ok': {
        const info = outcome.data.info;
        return {
          kind: 'ok',
          info: {
            sdcId: String(info.sdcId),
            mrcNo: String(info.mrcNo ?? '').trim(),
            taxpayerName: text(info.taxprNm),
            branchName: text(info.bhfNm),
            lastSaleInvoiceNo: counter(info.lastSaleInvcNo) ?? 0,
            lastPurchaseInvoiceNo: counter(info.lastPchsInvcNo),
            lastSaleReceiptNo: counter(info.lastSaleRcptNo),
            lastTrainingInvoiceNo: counter(info.lastTrainInvcNo),
            lastProformaInvoiceNo: counter(info.lastProfrmInvcNo),
          },
        };
      }
      case 'already_installed':
        return { kind: 'already_installed', message: outcome.resultMsg };
      case 'rejected':
        return { kind: 'rejected', code: outcome.code, message: outcome.message };
      case 'unreachable':
        return { kind: 'unreachable', cause: unreachableCause(outcome) };
    }
  };
}
