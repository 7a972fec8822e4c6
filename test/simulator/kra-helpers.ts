// The KRA profiles over a socket: a simulator, raw posts (OSCU with its headers), a sale body
// built with KRA's arithmetic, fresh PINs.
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';

/** A reply's or a built body's JSON, read field by field by the checks. */
type Loose = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON read by the checks

export interface KraWire {
  status: number;
  text: string;
  envelope: { resultCd: string; resultMsg: string; resultDt: string; data: Loose } | null;
}

export async function startKra(options: { now?: () => Date; stateFile?: string } = {}): Promise<Simulator> {
  return startSimulator({ port: 0, ...options });
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<KraWire> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let envelope: KraWire['envelope'] = null;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (typeof parsed.resultCd === 'string') envelope = parsed as KraWire['envelope'];
  } catch {
    envelope = null;
  }
  return { status: response.status, text, envelope };
}

export async function control(sim: Simulator, method: string, path: string, body?: unknown): Promise<{ status: number; json: Loose }> {
  const response = await fetch(`${sim.origin}/_sim${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

let pinCounter = Math.floor(Math.random() * 1_000_000);
/** A PIN no other test uses: letter, 9 digits, letter. */
export function freshPin(): string {
  pinCounter += 1;
  return `P${String(pinCounter).padStart(9, '0')}K`;
}

const RATES: Record<string, number> = { A: 0, B: 16, C: 0, D: 0, E: 8 };
const r2 = (x: number): number => Math.round((x + Math.sign(x) * 1e-9) * 100) / 100;

export interface LineSpec {
  letter: 'A' | 'B' | 'C' | 'D' | 'E';
  prc: number;
  qty: number;
  dcRt?: number;
  /** The price includes VAT: the base is backed out of it. */
  inclusive?: boolean;
}

export function saleBody(invcNo: number | string, lines: LineSpec[], extra: Record<string, unknown> = {}): Record<string, Loose> {
  const itemList = lines.map((l, i) => {
    const rate = RATES[l.letter]! / 100;
    const splyAmt = r2(l.prc * l.qty);
    const dcRt = l.dcRt ?? 0;
    const dcAmt = r2((splyAmt * dcRt) / 100);
    const net = r2(splyAmt - dcAmt);
    const taxblAmt = l.inclusive ? r2(net / (1 + rate)) : net;
    const totAmt = l.inclusive ? net : r2(taxblAmt + r2(taxblAmt * rate));
    return {
      itemSeq: i + 1,
      itemCd: `KE1NTXU${String(i + 1).padStart(7, '0')}`,
      itemClsCd: '50202300',
      itemNm: `Item ${i + 1}`,
      bcd: null,
      pkgUnitCd: 'NT',
      pkg: l.qty,
      qtyUnitCd: 'U',
      qty: l.qty,
      prc: l.prc,
      splyAmt,
      dcRt,
      dcAmt,
      isrccCd: null,
      isrccNm: null,
      isrcRt: null,
      isrcAmt: null,
      taxTyCd: l.letter,
      taxblAmt,
      taxAmt: r2(totAmt - taxblAmt),
      totAmt,
    };
  });
  const header: Record<string, number> = {};
  for (const letter of Object.keys(RATES)) {
    const mine = itemList.filter((l) => l.taxTyCd === letter);
    header[`taxblAmt${letter}`] = r2(mine.reduce((s, l) => s + l.taxblAmt, 0));
    header[`taxRt${letter}`] = RATES[letter]!;
    header[`taxAmt${letter}`] = r2(mine.reduce((s, l) => s + l.taxAmt, 0));
  }
  return {
    trdInvcNo: `INV/${invcNo}`,
    invcNo,
    orgInvcNo: 0,
    custTin: 'A123456789Z',
    custNm: 'Simulated Customer Ltd',
    rcptTyCd: 'S',
    pmtTyCd: '01',
    salesSttsCd: '02',
    cfmDt: '20261201103000',
    salesDt: '20261201',
    stockRlsDt: null,
    cnclReqDt: null,
    cnclDt: null,
    rfdDt: null,
    rfdRsnCd: null,
    totItemCnt: itemList.length,
    ...header,
    totTaxblAmt: r2(itemList.reduce((s, l) => s + l.taxblAmt, 0)),
    totTaxAmt: r2(itemList.reduce((s, l) => s + l.taxAmt, 0)),
    totAmt: r2(itemList.reduce((s, l) => s + l.totAmt, 0)),
    prchrAcptcYn: 'N',
    remark: null,
    regrId: 'admin',
    regrNm: 'admin',
    modrId: 'admin',
    modrNm: 'admin',
    receipt: {
      custTin: 'A123456789Z',
      custMblNo: null,
      rptNo: 1,
      rcptPbctDt: '20261201103000',
      trdeNm: null,
      adrs: null,
      topMsg: null,
      btmMsg: null,
      prchrAcptcYn: 'N',
    },
    itemList,
    ...extra,
  };
}

/** A credit note against `orgInvcNo`, for the same lines. */
export function creditNote(
  invcNo: number,
  orgInvcNo: number,
  lines: LineSpec[],
  extra: Record<string, unknown> = {},
): Record<string, Loose> {
  return saleBody(invcNo, lines, { rcptTyCd: 'R', orgInvcNo, rfdRsnCd: '06', ...extra });
}
