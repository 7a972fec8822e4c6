// The code tables the simulator publishes through `selectCodes`, shaped like the authority's
// sandbox response (class numbers and codes as captured from it; names via ICU where they are
// standard, i.e. countries and currencies).
import type { CodeClass, CodeDetail } from '@fiscal-gateway/vsdc-protocol';
import { SIMULATED_LEVIES, SIMULATED_TAX_TYPES, type SimulatedTaxType } from './tax-rates.js';

const COUNTRY_CODES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

const QUANTITY_UNITS: [string, string][] = [
  ['U', 'Pieces/item [Number]'],
  ['BA', 'Barrel'],
  ['BE', 'Bundle'],
  ['BG', 'Bag'],
  ['BL', 'Block'],
  ['BLL', 'Barrel (petroleum)'],
  ['BX', 'Box'],
  ['CA', 'Can'],
  ['CEL', 'Cell'],
  ['CMT', 'Centimetre'],
  ['CR', 'Carat'],
  ['DR', 'Drum'],
  ['DZ', 'Dozen'],
  ['GLL', 'Gallon'],
  ['GRM', 'Gram'],
  ['GRO', 'Gross'],
  ['KG', 'Kilogram'],
  ['KTM', 'Kilometre'],
  ['KWT', 'Kilowatt'],
  ['L', 'Litre'],
  ['LBR', 'Pound'],
  ['LK', 'Link'],
  ['LTR', 'Litre'],
  ['M', 'Metre'],
  ['M2', 'Square metre'],
  ['M3', 'Cubic metre'],
  ['MGM', 'Milligram'],
  ['MTR', 'Metre'],
  ['MWT', 'Megawatt hour'],
  ['NO', 'Number'],
  ['PA', 'Packet'],
  ['PG', 'Plate'],
  ['PR', 'Pair'],
  ['RL', 'Reel'],
  ['RO', 'Roll'],
  ['SET', 'Set'],
  ['ST', 'Sheet'],
  ['TNE', 'Tonne'],
  ['TU', 'Tube'],
  ['YRD', 'Yard'],
];

const PACKAGING_UNITS: [string, string][] = [
  ['AM', 'Ampoule'],
  ['BA', 'Barrel'],
  ['BC', 'Bottle crate'],
  ['BE', 'Bundle'],
  ['BF', 'Balloon, non-protected'],
  ['BG', 'Bag'],
  ['BJ', 'Bucket'],
  ['BK', 'Basket'],
  ['BL', 'Bale'],
  ['BQ', 'Bottle, protected cylindrical'],
  ['BR', 'Bar'],
  ['BV', 'Bottle, bulbous'],
  ['BZ', 'Bag'],
  ['CA', 'Can'],
  ['CH', 'Chest'],
  ['CJ', 'Coffin'],
  ['CL', 'Coil'],
  ['CR', 'Wooden box, wooden case'],
  ['CS', 'Cassette'],
  ['CT', 'Carton'],
  ['CTN', 'Container'],
  ['CY', 'Cylinder'],
  ['DR', 'Drum'],
  ['GT', 'Extra countable item'],
  ['HH', 'Hand baggage'],
  ['IZ', 'Ingots'],
  ['JR', 'Jar'],
  ['JU', 'Jug'],
  ['JY', 'Jerry can, cylindrical'],
  ['KZ', 'Canister'],
  ['LZ', 'Logs, in bundle/bunch/truss'],
  ['NT', 'Net'],
  ['OU', 'Non-exterior packaging unit'],
  ['PD', 'Poddon'],
  ['PG', 'Plate'],
  ['PI', 'Pipe'],
  ['PO', 'Pilot'],
  ['PU', 'Traypack'],
  ['RL', 'Reel'],
  ['RO', 'Roll'],
  ['RZ', 'Rods, in bundle/bunch/truss'],
  ['SK', 'Skeleton case'],
  ['TY', 'Tank, cylindrical'],
  ['VQ', 'Bulk, gas (at 1031 mbar and 15 °C)'],
  ['VR', 'Bulk, solid, granular particles'],
  ['VY', 'Bulk, fine particles'],
];

type Pairs = [string, string][];

const SMALL_TABLES: { cdCls: string; cdClsNm: string; rows: Pairs }[] = [
  {
    cdCls: '06',
    cdClsNm: 'Sale category',
    rows: [
      ['1', 'Normal invoice'],
      ['2', 'Export'],
      ['3', 'LPO'],
    ],
  },
  {
    cdCls: '07',
    cdClsNm: 'Payment type',
    rows: [
      ['01', 'CASH'],
      ['02', 'CREDIT'],
      ['03', 'CASH/CREDIT'],
      ['04', 'BANK CHECK'],
      ['05', 'DEBIT&CREDIT CARD'],
      ['06', 'MOBILE MONEY'],
      ['07', 'OTHER'],
      ['08', 'BANK TRANSFER'],
    ],
  },
  {
    cdCls: '11',
    cdClsNm: 'Sale status',
    rows: [
      ['01', 'Wait for Approval'],
      ['02', 'Approved'],
      ['03', 'Cancel Requested'],
      ['04', 'Rejected'],
      ['05', 'Credit Note Generated'],
      ['06', 'Transferred'],
    ],
  },
  {
    cdCls: '12',
    cdClsNm: 'Stock I/O type',
    rows: [
      ['01', 'Import'],
      ['02', 'Purchase'],
      ['03', 'Return'],
      ['04', 'Stock movement'],
      ['05', 'Processing'],
      ['06', 'Adjustment'],
      ['11', 'Sale'],
      ['12', 'Return'],
      ['13', 'Stock movement'],
      ['14', 'Processing'],
      ['15', 'Discarding'],
      ['16', 'Adjustment'],
    ],
  },
  {
    cdCls: '13',
    cdClsNm: 'Default information',
    rows: [
      ['1', '1000000000'],
      ['2', '20000101000000'],
    ],
  },
  {
    cdCls: '14',
    cdClsNm: 'Transaction type',
    rows: [
      ['C', 'Copy'],
      ['N', 'Normal'],
      ['P', 'Proforma'],
      ['T', 'Training'],
    ],
  },
  {
    cdCls: '24',
    cdClsNm: 'Item type',
    rows: [
      ['1', 'Raw Material'],
      ['2', 'Finished Product'],
      ['3', 'Service'],
    ],
  },
  {
    cdCls: '26',
    cdClsNm: 'Import item status',
    rows: [
      ['1', 'Unsent'],
      ['2', 'Waiting'],
      ['3', 'Approved'],
      ['4', 'Cancelled'],
    ],
  },
  {
    cdCls: '32',
    cdClsNm: 'Credit note reason',
    rows: [
      ['01', 'Wrong product(s)'],
      ['02', 'Wrong price'],
      ['03', 'Damaged goods'],
      ['04', 'Wrong customer invoiced'],
      ['05', 'Duplicated invoice'],
      ['06', 'Excess supplies'],
      ['07', 'Other'],
    ],
  },
  {
    cdCls: '34',
    cdClsNm: 'Purchase status',
    rows: [
      ['01', 'Wait for Approval'],
      ['02', 'Approved'],
      ['03', 'Cancel Requested'],
      ['04', 'Rejected'],
      ['05', 'Credit Note Generated'],
      ['06', 'Transferred'],
    ],
  },
  {
    cdCls: '37',
    cdClsNm: 'Sales receipt type',
    rows: [
      ['S', 'Sale'],
      ['R', 'Credit Note'],
      ['D', 'Debit Note'],
    ],
  },
  {
    cdCls: '38',
    cdClsNm: 'Purchase receipt type',
    rows: [
      ['P', 'Purchase'],
      ['R', 'Credit Note after Purchase'],
    ],
  },
  {
    cdCls: '67',
    cdClsNm: 'Debit note reason',
    rows: [
      ['01', 'Wrong quantity invoiced'],
      ['02', 'Wrong invoice amount'],
      ['03', 'Omitted item'],
      ['04', 'Other'],
    ],
  },
];

function detail(cd: string, cdNm: string, index: number, userDfnCd1: string | null = null): CodeDetail {
  return { cd, cdNm, cdDesc: null, useYn: 'Y', srtOrd: index + 1, userDfnCd1, userDfnCd2: null, userDfnCd3: null };
}

function codeClass(cdCls: string, cdClsNm: string, dtlList: CodeDetail[], userDfnNm1: string | null = null): CodeClass {
  return { cdCls, cdClsNm, cdClsDesc: null, useYn: 'Y', userDfnNm1, userDfnNm2: null, userDfnNm3: null, dtlList };
}

/** The published rate: whole percents as integers (`16`), the tourism levy as `1.5`. */
const rateText = (t: SimulatedTaxType): string => String(Number(t.rate4) / 10_000);

/** Levy classes as the sandbox publishes them: 60 excise, 61 insurance premium levy, 62 tourism levy. */
function levyClass(cdCls: string, cdClsNm: string): CodeClass {
  const levies = SIMULATED_LEVIES.filter((l) => l.field.codeClass === cdCls);
  return codeClass(
    cdCls,
    cdClsNm,
    levies.map((l, i) => detail(l.code, l.name, i, rateText(l))),
    'Tax rate',
  );
}

function buildCodeTables(): CodeClass[] {
  const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
  const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency' });
  const currencies = [...new Set(['ZMW', ...Intl.supportedValuesOf('currency')])].sort();
  return [
    codeClass(
      '04',
      'Taxation Type',
      SIMULATED_TAX_TYPES.map((t, i) => detail(t.code, t.name, i, rateText(t))),
      'Tax rate',
    ),
    levyClass('60', 'Excise Tax Type'),
    levyClass('61', 'Insurance Premium Levy Type'),
    levyClass('62', 'Tourism Levy Type'),
    codeClass(
      '05',
      'Country',
      COUNTRY_CODES.map((cd, i) => detail(cd, regionNames.of(cd) ?? cd, i)),
    ),
    codeClass(
      '10',
      'Quantity unit',
      QUANTITY_UNITS.map(([cd, nm], i) => detail(cd, nm, i)),
    ),
    codeClass(
      '17',
      'Packing unit',
      PACKAGING_UNITS.map(([cd, nm], i) => detail(cd, nm, i)),
    ),
    codeClass(
      '33',
      'Currency',
      currencies.map((cd, i) => detail(cd, currencyNames.of(cd) ?? cd, i)),
    ),
    ...SMALL_TABLES.map((t) =>
      codeClass(
        t.cdCls,
        t.cdClsNm,
        t.rows.map(([cd, nm], i) => detail(cd, nm, i)),
      ),
    ),
  ].sort((a, b) => a.cdCls.localeCompare(b.cdCls));
}

export const CODE_TABLES: readonly CodeClass[] = buildCodeTables();

/** When the published tables last changed: a `lastReqDt` at or after this gets `001`. */
export const CODE_TABLES_PUBLISHED_AT = '20240613155540';

const CODE_SETS = new Map<string, ReadonlySet<string>>(CODE_TABLES.map((c) => [c.cdCls, new Set(c.dtlList.map((d) => d.cd))]));

/** Whether `code` is in the class, e.g. `isKnownCode('07', '06')` for mobile money. */
export function isKnownCode(cdCls: string, code: unknown): boolean {
  return typeof code === 'string' && (CODE_SETS.get(cdCls)?.has(code) ?? false);
}
