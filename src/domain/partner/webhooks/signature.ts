import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Hex HMAC-SHA256 keyed with the whole `whsec_…` string (UTF-8) over `<t>.<body>`. */
function computeSignature(secret: string, timestamp: number, body: string | Uint8Array): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8');
  return (typeof body === 'string' ? hmac.update(body, 'utf8') : hmac.update(body)).digest('hex');
}

/** The `X-Service-Signature` value: `t=<unix seconds>,v1=<hex>`. */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
}
