import type { AppContext } from '../../context.ts';
import type { Handshake } from './devices-service.ts';

/** Adapts the VSDC client's selectInitInfo to the provisioning rules. */
export function vsdcHandshake(ctx: AppContext): Handshake {
  return async (target, deviceSerial) => {
    const outcome = await ctx.vsdc.selectInitInfo(target, { dvcSrlNo: deviceSerial });
    switch (outcome.kind) {
      case 'ok': {
        const info = outcome.data.info;
        const num = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));
        return {
          kind: 'ok',
          info: {
            sdcId: String(info.sdcId),
            mrcNo: String(info.mrcNo ?? '').trim(),
            taxpayerName: info.taxprNm ?? null,
            branchName: info.bhfNm ?? null,
            lastSaleInvoiceNo: num(info.lastSaleInvcNo) ?? 0,
            lastPurchaseInvoiceNo: num(info.lastPchsInvcNo),
            lastSaleReceiptNo: num(info.lastSaleRcptNo),
          },
        };
      }
      case 'already_installed':
        return { kind: 'already_installed', message: outcome.resultMsg };
      case 'rejected':
        return { kind: 'rejected', code: outcome.code, message: outcome.message };
      case 'unreachable':
        return { kind: 'unreachable', reason: `${outcome.reason}: ${outcome.detail}` };
    }
  };
}
