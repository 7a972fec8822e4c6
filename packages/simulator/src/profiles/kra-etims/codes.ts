// KRA eTIMS's code tables as selectCodeList / selectCodes publish them, its item classification
// sample, its result codes and messages, and its clock (Kenyan local time, UTC+3 all year).

interface KraCodeDetail {
  cd: string;
  cdNm: string;
  cdDesc: string | null;
  useYn: 'Y';
  srtOrd: number;
  userDfnCd1: string | null;
  userDfnCd2: null;
  userDfnCd3: null;
}

export interface KraCodeClass {
  cdCls: string;
  cdClsNm: string;
  cdClsDesc: string | null;
  useYn: 'Y';
  userDfnNm1: string | null;
  userDfnNm2: null;
  userDfnNm3: null;
  dtlList: KraCodeDetail[];
}

type Entry = [cd: string, name: string, userDfnCd1?: string];

function codeClass(cdCls: string, cdClsNm: string, entries: Entry[], userDfnNm1: string | null = null): KraCodeClass {
  return {
    cdCls,
    cdClsNm,
    cdClsDesc: null,
    useYn: 'Y',
    userDfnNm1,
    userDfnNm2: null,
    userDfnNm3: null,
    dtlList: entries.map(([cd, cdNm, rate], i) => ({
      cd,
      cdNm,
      cdDesc: null,
      useYn: 'Y',
      srtOrd: i + 1,
      userDfnCd1: rate ?? null,
      userDfnCd2: null,
      userDfnCd3: null,
    })),
  };
}

/** The published tables. Class 04's rate (percent) is in `userDfnCd1`: the sale check reads it from here. */
export const KRA_CODE_TABLES: readonly KraCodeClass[] = [
  codeClass(
    '04',
    'Taxation Type',
    [
      ['A', 'A-Exempt', '0'],
      ['B', 'B-16.00%', '16'],
      ['C', 'C-0%', '0'],
      ['D', 'D-Non-VAT', '0'],
      ['E', 'E-8%', '8'],
    ],
    'Tax Rate',
  ),
  codeClass('05', 'Country', [
    ['KE', 'KENYA'],
    ['UG', 'UGANDA'],
    ['TZ', 'TANZANIA'],
    ['RW', 'RWANDA'],
    ['CN', 'CHINA'],
    ['IN', 'INDIA'],
    ['AE', 'UNITED ARAB EMIRATES'],
    ['GB', 'UNITED KINGDOM'],
    ['US', 'UNITED STATES'],
  ]),
  codeClass('07', 'Payment Type', [
    ['01', 'CASH'],
    ['02', 'CREDIT'],
    ['03', 'CASH/CREDIT'],
    ['04', 'BANK CHECK'],
    ['05', 'DEBIT&CREDIT CARD'],
    ['06', 'MOBILE MONEY'],
    ['07', 'OTHER'],
  ]),
  codeClass('09', 'Branch Status', [
    ['01', 'Open'],
    ['02', 'Closed'],
  ]),
  codeClass('10', 'Quantity Unit', [
    ['U', 'Pieces/item [Number]'],
    ['KG', 'Kilo-Gramme'],
    ['L', 'Litre'],
    ['BLL', 'Barrel'],
    ['M', 'Metre'],
    ['TNE', 'Tonne'],
    ['BX', 'Box'],
  ]),
  codeClass('11', 'Sale Status', [
    ['01', 'Wait for Approval'],
    ['02', 'Approved'],
    ['03', 'Cancel Requested'],
    ['04', 'Canceled'],
    ['05', 'Credit Note Generated'],
    ['06', 'Transferred'],
  ]),
  codeClass('12', 'Stock I/O Type', [
    ['01', 'Import'],
    ['02', 'Purchase'],
    ['03', 'Return'],
    ['04', 'Stock Movement'],
    ['05', 'Processing'],
    ['06', 'Adjustment'],
    ['11', 'Sale'],
    ['12', 'Return'],
    ['13', 'Stock Movement'],
    ['14', 'Processing'],
    ['15', 'Discarding'],
    ['16', 'Adjustment'],
  ]),
  codeClass('14', 'Transaction Type', [
    ['C', 'Copy'],
    ['N', 'Normal'],
    ['P', 'Proforma'],
    ['T', 'Training'],
  ]),
  codeClass('17', 'Packing Unit', [
    ['NT', 'NET'],
    ['OU', 'OUTER'],
    ['CT', 'CARTON'],
    ['CTN', 'CARTON'],
    ['BG', 'BAG'],
    ['BX', 'BOX'],
    ['BO', 'BOTTLE'],
  ]),
  codeClass('24', 'Item Type', [
    ['1', 'Raw Material'],
    ['2', 'Finished Product'],
    ['3', 'Service'],
  ]),
  codeClass('26', 'Import Item Status', [
    ['1', 'Unsent'],
    ['2', 'Waiting'],
    ['3', 'Approved'],
    ['4', 'Cancelled'],
  ]),
  codeClass('32', 'Refund Reason', [
    ['01', 'Missing Quantity'],
    ['02', 'Missing Item'],
    ['03', 'Damaged'],
    ['04', 'Wasted'],
    ['05', 'Raw Material Shortage'],
    ['06', 'Refund'],
    ['07', 'Wrong Customer PIN'],
    ['08', 'Wrong Customer name'],
    ['09', 'Wrong Amount/price'],
    ['10', 'Wrong Quantity'],
    ['11', 'Wrong Item(s)'],
    ['12', 'Wrong tax type'],
    ['13', 'Other reason'],
  ]),
  codeClass('34', 'Purchase Status', [
    ['01', 'Wait for Approval'],
    ['02', 'Approved'],
    ['03', 'Cancel Requested'],
    ['04', 'Canceled'],
    ['05', 'Refunded'],
    ['06', 'Transferred'],
  ]),
  codeClass('37', 'Sales Receipt Type', [
    ['S', 'Sale'],
    ['R', 'Credit Note'],
  ]),
  codeClass('38', 'Purchase Receipt Type', [
    ['P', 'Purchase'],
    ['R', 'Credit Note'],
  ]),
];

/** When the tables were last changed: a select with a later `lastReqDt` gets `001`. */
export const CODE_TABLES_PUBLISHED_AT = '20240101000000';

export function isKraCode(cdCls: string, cd: unknown): boolean {
  return typeof cd === 'string' && KRA_CODE_TABLES.some((c) => c.cdCls === cdCls && c.dtlList.some((d) => d.cd === cd));
}

/** The rate (percent) of a tax type, from class 04; undefined for a letter that is not one. */
export function kraTaxRate(taxTyCd: string): number | undefined {
  const detail = KRA_CODE_TABLES.find((c) => c.cdCls === '04')!.dtlList.find((d) => d.cd === taxTyCd);
  return detail ? Number(detail.userDfnCd1) : undefined;
}

export const TAX_LETTERS = ['A', 'B', 'C', 'D', 'E'] as const;

/** A sample of the item classification (UNSPSC-style 8- and 10-digit codes). */
export const KRA_ITEM_CLASSES = [
  ['5059690800', 'Packaged food', 'B'],
  ['50202300', 'Non alcoholic beverages', 'B'],
  ['50221200', 'Cereals and grains', 'A'],
  ['51101500', 'Antibiotics', 'A'],
  ['42131600', 'Medical apparel', 'B'],
  ['15101500', 'Petroleum and distillates', 'E'],
  ['81121500', 'Economic analysis', 'B'],
  ['81111500', 'Software or hardware engineering', 'B'],
  ['80111600', 'Temporary personnel services', 'B'],
  ['78101800', 'Road freight transport', 'B'],
  ['43211500', 'Computers', 'B'],
  ['44121700', 'Writing instruments', 'B'],
  ['10101500', 'Livestock', 'A'],
  ['99010000', 'Export goods', 'C'],
  ['93151500', 'Public administration', 'D'],
].map(([itemClsCd, itemClsNm, taxTyCd]) => ({
  itemClsCd: itemClsCd!,
  itemClsNm: itemClsNm!,
  itemClsLvl: 4,
  taxTyCd: taxTyCd!,
  mjrTgYn: 'N',
  useYn: 'Y',
}));

export const RESULT_MESSAGES: Record<string, string> = {
  '000': 'It is succeeded',
  '001': 'There is no search result',
  '894': 'Server communication error',
  '900': 'There is no header information',
  '901': 'It is not valid device',
  '902': 'This device is installed',
  '903': 'Only OSCU device can be verified',
  '910': 'Request parameter error',
  '911': 'There is no request full text',
  '921': 'Sales or sales invoice data already declared cannot be received',
  '922': 'Sales invoice data can be received only after receiving the sales data',
  '994': 'It is overlapped data',
  '999': 'There is an unknown error. Please ask it administrator',
};

const NAIROBI_OFFSET_MS = 3 * 3_600_000;
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function nairobiParts(at: Date): number[] {
  const t = new Date(at.getTime() + NAIROBI_OFFSET_MS);
  return [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds()];
}

/** `YYYYMMDDHHmmss`, Nairobi time. */
export function kenyaDateTime(at: Date): string {
  const [y, mo, d, h, mi, s] = nairobiParts(at);
  return `${pad(y!, 4)}${pad(mo!)}${pad(d!)}${pad(h!)}${pad(mi!)}${pad(s!)}`;
}

/** `YYYY-MM-DD HH:MM:SS.0`, Nairobi time (selectInvoiceDetails' `sdcDateTime`). */
export function kenyaDisplayDateTime(at: Date): string {
  const [y, mo, d, h, mi, s] = nairobiParts(at);
  return `${pad(y!, 4)}-${pad(mo!)}-${pad(d!)} ${pad(h!)}:${pad(mi!)}:${pad(s!)}.0`;
}

/** A real calendar date in `YYYYMMDD` or `YYYYMMDDHHmmss`, as a UTC instant of its digits (for comparisons only). */
export function parseKraDate(value: unknown, withTime: boolean): Date | null {
  if (typeof value !== 'string' || !(withTime ? /^\d{14}$/ : /^\d{8}$/).test(value)) return null;
  const n = (from: number, to: number): number => Number(value.slice(from, to));
  const [y, mo, d] = [n(0, 4), n(4, 6), n(6, 8)];
  const [h, mi, s] = withTime ? [n(8, 10), n(10, 12), n(12, 14)] : [0, 0, 0];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const same =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s;
  return same ? date : null;
}
