// Credit (R) and debit (D) notes must reference a sale this device signed; a credit note may not
// take back more than the sale held, counting earlier credit notes (930–935).
import type { Device, FiledDocument } from './device.js';
import { CENT, toFixed4 } from './fixed-point.js';
import type { CheckedSale, Rejection } from './sales-check.js';

function reject(code: string, message: string): Rejection {
  return { ok: false, code, message };
}

function originalLines(original: FiledDocument): Map<string, { qty4: number; amount4: number }> {
  const byKey = new Map<string, { qty4: number; amount4: number }>();
  for (const line of original.lines) {
    const entry = byKey.get(line.key) ?? { qty4: 0, amount4: 0 };
    entry.qty4 += line.qty4;
    entry.amount4 += line.amount4;
    byKey.set(line.key, entry);
  }
  return byKey;
}

const keyLabel = (key: string): string => key.replace(/^(code|name):/, '');

/** The original sale of a note, or a rejection. Sales pass through with no original. */
export function checkNote(sale: CheckedSale, device: Device): { original: FiledDocument | null } | Rejection {
  if (sale.rcptTyCd === 'S') return { original: null };
  const original = device.filedByReceipt.get(sale.orgInvcNo);
  if (!original || original.rcptTyCd !== 'S') {
    return reject('930', `The specified invoice could not be found. Please verify [orgInvcNo] ${sale.orgInvcNo}`);
  }
  if (sale.orgSdcId !== device.record.sdcId) {
    return reject('930', `The specified invoice could not be found. Please verify [orgSdcId] ${String(sale.orgSdcId)}`);
  }
  if (sale.rcptTyCd === 'D') return { original };

  const available = originalLines(original);
  const credited = original.credited ?? { total4: 0, byKey: {} };
  const noteByKey = new Map<string, { qty4: number; amount4: number }>();
  for (const line of sale.lines) {
    const entry = noteByKey.get(line.key) ?? { qty4: 0, amount4: 0 };
    entry.qty4 += line.qty4;
    entry.amount4 += line.amount4;
    noteByKey.set(line.key, entry);
  }
  for (const [key, note] of noteByKey) {
    const had = available.get(key);
    if (!had) return reject('932', `Credit note item is not on the original invoice [${keyLabel(key)}]`);
    const before = credited.byKey[key] ?? { qty4: 0, amount4: 0 };
    if (before.qty4 + note.qty4 > had.qty4) return reject('934', `Credit note quantity exceeds the original for item [${keyLabel(key)}]`);
    if (before.amount4 + note.amount4 > had.amount4 + Number(CENT)) {
      return reject('931', `Credit note amount exceeds the original for item [${keyLabel(key)}]`);
    }
  }
  const originalTotal4 = Number(toFixed4(original.totals.total) ?? 0n);
  if (credited.total4 + Number(sale.total4) > originalTotal4 + Number(CENT)) {
    return reject('935', 'Credit note data does not match the original invoice: total exceeds what remains to credit');
  }
  return { original };
}

/** Books a filed credit note against its original sale. */
export function recordCredit(original: FiledDocument, sale: CheckedSale): void {
  const credited = original.credited ?? { total4: 0, byKey: {} };
  credited.total4 += Number(sale.total4);
  for (const line of sale.lines) {
    const entry = credited.byKey[line.key] ?? { qty4: 0, amount4: 0 };
    entry.qty4 += line.qty4;
    entry.amount4 += line.amount4;
    credited.byKey[line.key] = entry;
  }
  original.credited = credited;
}
