// Receipt numbers and signatures. Real VSDCs sign with keys from initialisation; the simulator
// derives look-alike values (26-char internal data, 16-char signature, upper-case base32) from a
// hash so they are stable for the same input.
import { createHash } from 'node:crypto';
import { formatVsdcDateTime } from '@fiscal-gateway/vsdc-protocol';
import type { Device, IssuedReceipt } from './device.js';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Buffer, length: number): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
    if (out.length === length) break;
  }
  return out;
}

const QR_BASE_URL = 'https://sandboxportal.zra.org.zm/indexInvoiceData?Data=';

export function issueReceipt(device: Device, cisInvcNo: string, totAmt: number, now: Date): IssuedReceipt {
  const record = device.record;
  record.lastSaleRcptNo += 1;
  const rcptNo = record.lastSaleRcptNo;
  const digest = createHash('sha256').update(`${record.tpin}|${record.bhfId}|${record.sdcId}|${rcptNo}|${cisInvcNo}|${totAmt}`).digest();
  const rcptSign = base32(digest.subarray(0, 10), 16);
  const intrlData = base32(digest.subarray(10, 27), 26);
  return {
    rcptNo,
    intrlData,
    rcptSign,
    vsdcRcptPbctDate: formatVsdcDateTime(now),
    sdcId: record.sdcId ?? '',
    mrcNo: record.mrcNo ?? '',
    qrCodeUrl: `${QR_BASE_URL}${record.tpin}${record.bhfId}${rcptSign}`,
  };
}
