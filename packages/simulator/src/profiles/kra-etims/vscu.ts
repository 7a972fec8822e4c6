// KRA's VSCU (the jar a taxpayer runs) as a simulator profile: the VSDC family of local paths,
// `tin` and `bhfId` in every body, headers ignored, no cmcKey. `/trnsSales/selectSales {invcNo}`
// (a filed sale, as OSCU's selectInvoiceDetails) is the simulator's own: no VSCU lookup is known.
// With the `vscuTwoStepSale` setting a sale takes two calls: saveSales, then `/trnsSales/saveInvoice
// {invcNo}` for its receipt (922 before the sale, 921 once given).
import type { SimulatorProfile } from '../../core/profile.js';
import { branchInfo, handleShared, install, invoiceDetails, isShared, saleCall, withFaults } from './calls.js';
import type { SharedOperation } from './endpoints.js';
import { KRA_BHF_ID, KRA_TIN, openKra, type KraInstance } from './instance.js';
import type { KraDeviceRecord, KraFiledDocument } from './device.js';
import { envelope, ok, param } from './replies.js';
import { kraInteger } from './sales.js';

function receiptOf(doc: KraFiledDocument, record: KraDeviceRecord): Record<string, unknown> {
  return {
    rcptNo: doc.receipt.curRcptNo,
    totRcptNo: doc.receipt.totRcptNo,
    intrlData: doc.receipt.intrlData,
    rcptSign: doc.receipt.rcptSign,
    vsdcRcptPbctDate: doc.receipt.sdcDateTime,
    sdcId: record.sdcId,
    mrcNo: record.mrcNo,
  };
}

const lastOfType = (record: KraDeviceRecord, salesTyCd: string): number =>
  Math.max(0, ...record.filed.filter((d) => (d.salesTyCd ?? 'N') === salesTyCd).map((d) => d.invcNo));

/** Path → the endpoint's name (its last segment) and the operation it is (OSCU's name where shared). */
const VSCU_PATHS: Record<string, SharedOperation | 'init' | 'sale' | 'invoice' | 'lookup'> = {
  '/initializer/selectInitInfo': 'init',
  '/code/selectCodes': 'selectCodeList',
  '/itemClass/selectItemsClass': 'selectItemClsList',
  '/customers/selectCustomer': 'selectCustomer',
  '/branches/selectBranches': 'selectBhfList',
  '/notices/selectNotices': 'selectNoticeList',
  '/branches/saveBrancheCustomers': 'saveBhfCustomer',
  '/branches/saveBrancheUsers': 'saveBhfUser',
  '/branches/saveBrancheInsurances': 'saveBhfInsurance',
  '/items/saveItems': 'saveItem',
  '/items/selectItems': 'selectItemList',
  '/items/saveItemComposition': 'saveItemComposition',
  '/imports/selectImportItems': 'selectImportItemList',
  '/imports/updateImportItems': 'updateImportItem',
  '/trnsSales/saveSales': 'sale',
  '/trnsSales/saveInvoice': 'invoice',
  '/trnsSales/selectSales': 'lookup',
  '/trnsPurchase/selectTrnsPurchaseSales': 'selectTrnsPurchaseSalesList',
  '/trnsPurchase/savePurchases': 'insertTrnsPurchase',
  '/stock/saveStockItems': 'insertStockIO',
  '/stock/selectStockItems': 'selectStockMoveList',
  '/stockMaster/saveStockMaster': 'saveStockMaster',
};

const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const OPERATION = new Map(Object.entries(VSCU_PATHS).map(([path, op]) => [nameOf(path), op]));
const BY_PATH = new Map(Object.keys(VSCU_PATHS).map((path) => [path, nameOf(path)]));
/** Answered before init (the code tables double as a health probe). */
const OPEN_BEFORE_INIT = new Set(['selectInitInfo', 'selectCodes', 'selectItemsClass']);

export const kraVscu: SimulatorProfile<KraInstance> = {
  id: 'kra-vscu',
  endpointAt: (path) => BY_PATH.get(path),
  open: (options) =>
    openKra(
      {
        kind: 'VSCU',
        endpoints: [...BY_PATH.values()],
        saleEndpoint: 'saveSales',
        deviceKeyOf: ({ tin, bhfId }) =>
          typeof tin === 'string' && KRA_TIN.test(tin) && typeof bhfId === 'string' && KRA_BHF_ID.test(bhfId) ? { tpin: tin, bhfId } : null,
        unknownDevice: ({ tin }) =>
          typeof tin === 'string' && KRA_TIN.test(tin)
            ? param('bhfId', 'must be 2 characters')
            : param('tin', 'must be an 11-character KRA PIN'),
        answer: (endpoint, body, ctx) => {
          const op = OPERATION.get(endpoint)!;
          const record = ctx.device.record;
          if (!record.installed && !OPEN_BEFORE_INIT.has(endpoint)) return envelope('901');
          switch (op) {
            case 'init':
              return withFaults(
                endpoint,
                ctx,
                () =>
                  install(body, ctx, false) ??
                  ok({
                    info: {
                      ...branchInfo(ctx.device),
                      lastPchsInvcNo: Math.max(0, ...record.purchases.map((p) => Number(p.invcNo))),
                      lastSaleRcptNo: record.rcptNoByType.NS ?? 0,
                      lastInvcNo: record.lastInvcNo,
                      lastSaleInvcNo: lastOfType(record, 'N'),
                      lastTrainInvcNo: lastOfType(record, 'T'),
                      lastProfrmInvcNo: lastOfType(record, 'P'),
                      lastCopyInvcNo: 0,
                      vatTyCd: '2',
                    },
                  }),
              );
            case 'sale': {
              const twoStep = ctx.state.settings.vscuTwoStepSale;
              return saleCall(endpoint, body, ctx, ['N', 'T', 'P'], (doc) => {
                doc.invoiced = !twoStep;
                return twoStep ? null : receiptOf(doc, record);
              });
            }
            case 'invoice':
              return withFaults(endpoint, ctx, () => {
                const invcNo = kraInteger(body.invcNo, 1);
                if (invcNo === null) return param('invcNo', 'must be a whole number ≥ 1');
                const doc = ctx.device.filedByInvcNo.get(invcNo);
                if (!doc) return envelope('922');
                if (doc.invoiced !== false) return envelope('921');
                doc.invoiced = true;
                ctx.state.changed();
                return ok(receiptOf(doc, record));
              });
            case 'lookup':
              return withFaults(endpoint, ctx, () => invoiceDetails(body, ctx));
            default:
              return isShared(op) ? withFaults(endpoint, ctx, () => handleShared(op, body, ctx)) : envelope('999');
          }
        },
      },
      options,
    ),
};
