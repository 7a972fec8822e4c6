// What compat tests share: keys minted and till logins created through the partner API, and
// requests as a legacy till sends them (X-Api-Key + X-SdcId, PascalCase bodies).
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { bearer } from '../../helpers/app.ts';
import { CLASS_CODE, type Merchant, type Harness } from '../../helpers/harness.ts';

export interface LegacyItem {
  ItemName?: string;
  ItemClassificationCode?: string;
  Quantity?: number;
  UnitPrice?: number;
  VATCategoryCode?: string;
}

export function invoiceBody(
  clientInvoiceNumber: string,
  overrides: Record<string, unknown> = {},
  items: LegacyItem[] = [{}],
): Record<string, unknown> {
  return {
    ClientInvoiceNumber: clientInvoiceNumber,
    ReceiptTypeCode: 'S',
    Items: items.map((item, i) => ({
      ItemName: `Item ${i + 1}`,
      ItemClassificationCode: CLASS_CODE,
      Quantity: 1,
      UnitPrice: 116,
      ...item,
    })),
    ...overrides,
  };
}

let counter = 0;
/** A ClientInvoiceNumber no other test uses. */
export function nextNumber(prefix = 'TILL'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export async function mintKey(
  h: Harness,
  merchant: Merchant,
  options: { branch?: string; dialect?: 'bare' | 'wrapped' } = {},
): Promise<{ id: number; key: string }> {
  const res = await h.t.inject({
    method: 'POST',
    url: `/api/v1/tenants/${merchant.tenantId}/api-keys`,
    headers: bearer(merchant.partnerSecret),
    payload: options,
  });
  assert.equal(res.statusCode, 201, res.body);
  const created = res.json().data as { id: number; key: string };
  return { id: created.id, key: created.key };
}

export async function sdcIdOf(h: Harness, merchant: Merchant, branch = '000'): Promise<string> {
  const row = await h.ctx.db
    .selectFrom('devices')
    .select('sdc_id')
    .where('tenant_id', '=', merchant.tenantId)
    .where('branch', '=', branch)
    .executeTakeFirstOrThrow();
  assert.ok(row.sdc_id, `branch ${branch} is initialised`);
  return row.sdc_id;
}

export interface Till {
  key: string;
  sdcId: string | undefined;
}

export function tillHeaders(till: Till, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-api-key': till.key, ...(till.sdcId !== undefined ? { 'x-sdcid': till.sdcId } : {}), ...extra };
}

export function zmGet(h: Harness, url: string, till: Till, extra: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.t.inject({ method: 'GET', url, headers: tillHeaders(till, extra) });
}

export function zmPost(
  h: Harness,
  url: string,
  till: Till,
  body: unknown,
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return h.t.inject({ method: 'POST', url, headers: tillHeaders(till, extra), payload: body as object });
}

export function postInvoice(h: Harness, till: Till, body: unknown, extra: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return zmPost(h, '/zm/api/Invoice', till, body, extra);
}

export async function createTillLogin(
  h: Harness,
  merchant: Merchant,
  body: { username: string; branch: string; password?: string; dialect?: 'bare' | 'wrapped' },
): Promise<{ id: number; password: string }> {
  const res = await h.t.inject({
    method: 'POST',
    url: `/api/v1/tenants/${merchant.tenantId}/till-logins`,
    headers: bearer(merchant.partnerSecret),
    payload: body,
  });
  assert.equal(res.statusCode, 201, res.body);
  const created = res.json().data as { id: number; password?: string };
  return { id: created.id, password: body.password ?? created.password! };
}

export function getActive(h: Harness, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return h.t.inject({ method: 'POST', url: '/api/ApiKey/getactive', payload: body });
}

/** The legacy invoice payload: exactly the dialect's fields, in the dialect's order. */
export const INVOICE_FIELDS = [
  'ClientInvoiceNumber',
  'InvoiceNumber',
  'Status',
  'Tpin',
  'BranchId',
  'TotalAmount',
  'TaxableAmount',
  'TaxAmount',
  'Currency',
  'ReceiptNumber',
  'InternalData',
  'ReceiptSignature',
  'SdcId',
  'MrcNo',
  'QrCodeUrl',
  'PublishedAt',
  'ResultCode',
  'ResultMessage',
] as const;

export const FISCAL_FIELDS = ['ReceiptNumber', 'InternalData', 'ReceiptSignature', 'SdcId', 'MrcNo', 'QrCodeUrl', 'PublishedAt'] as const;

export type LegacyInvoice = Record<(typeof INVOICE_FIELDS)[number], unknown>;

/** Parses a wrapped success and checks its envelope. */
export function unwrap(res: LightMyRequestResponse): unknown {
  const body = res.json();
  assert.equal(body.success, true, res.body);
  assert.equal(body.message, 'OK');
  assert.deepEqual(Object.keys(body).sort(), ['data', 'message', 'success']);
  return body.data;
}

/** Checks a wrapped failure: the bare error's fields plus success and httpCode equal to the status. */
export function assertWrappedFailure(res: LightMyRequestResponse, status: number): Record<string, unknown> {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.success, false, res.body);
  assert.equal(body.httpCode, status);
  return body;
}

// ---- the real legacy body (ZMInvoiceDtoIn: the names of the product /zm/api imitates) ----

/** An instant as the till writes SaleDate: yyyyMMddHHmmss in Africa/Lusaka time (UTC+2). */
export function tillDateTime(at: Date): string {
  const local = new Date(at.getTime() + 2 * 3_600_000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(local.getUTCFullYear(), 4)}${pad(local.getUTCMonth() + 1)}${pad(local.getUTCDate())}${pad(local.getUTCHours())}${pad(local.getUTCMinutes())}${pad(local.getUTCSeconds())}`;
}

/** An hour ago, to the second. */
export function anHourAgo(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
}

/** A line as ZMInvoiceItemsDtoIn names it: 2 × 185.00, standard rated, tax-inclusive. */
export function realLine(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ItemSequenceNumber: 1,
    ItemDesc: 'Maize meal 25kg',
    itemClsCd: CLASS_CODE,
    PackagingUnitCode: 'BG',
    Package: 2,
    QuantityUnitCode: 'U',
    Quantity: 2,
    UnitPrice: 185,
    DiscountAmount: 0,
    TotalAmount: 370,
    Barcode: '6001234500017',
    TaxCodes: ['A'],
    isTaxInclusive: true,
    rrp: null,
    // Read-only fields the product computed and echoed: ignored when sent.
    supplyAmount: 370,
    taxLabel: 'A',
    ...overrides,
  };
}

/** A body as ZMInvoiceDtoIn names it (the names' own mix of PascalCase and camelCase). */
export function realBody(
  invoiceNumber: string,
  sdcId: string,
  overrides: Record<string, unknown> = {},
  lines: Record<string, unknown>[] = [realLine()],
): Record<string, unknown> {
  return {
    InvoiceNumber: invoiceNumber,
    OriginalInvoiceNumber: null,
    RegistrantName: 'Mary Banda',
    RegistrantId: 'CASHIER-7',
    IssuerName: null,
    IssuerId: null,
    CustomerMobileNumber: '+260971234567',
    ReportNumber: 'Z-0042',
    ReceiptTypeCode: 'S',
    PaymentTypeCode: '01',
    currencyType: 'ZMW',
    conversionRate: 1,
    SaleDate: tillDateTime(anHourAgo()),
    CustomerName: 'Walk-in',
    CustomerTpin: '',
    refundedReasonCode: null,
    sdcId,
    invoiceItems: lines,
    // Read-only fields the product computed and echoed: ignored when sent.
    totalItemCount: lines.length,
    taxRateA: 16,
    invoiceStatusCode: '02',
    ...overrides,
  };
}

export type Casing = 'PascalCase' | 'camelCase' | 'lower case';

function recaseKey(key: string, casing: Casing): string {
  if (casing === 'lower case') return key.toLowerCase();
  return (casing === 'PascalCase' ? key[0]!.toUpperCase() : key[0]!.toLowerCase()) + key.slice(1);
}

/** The body with the keys of the invoice and of its lines in one casing (values unchanged). */
export function recased(body: Record<string, unknown>, casing: Casing): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      recaseKey(key, casing),
      Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
        ? value.map((line: Record<string, unknown>) => Object.fromEntries(Object.entries(line).map(([k, v]) => [recaseKey(k, casing), v])))
        : value,
    ]),
  );
}

/** The product's fiscal names (ZMFiscalDetailsDtoOut) that follow ours on an invoice sent in its names. */
export const PRODUCT_FISCAL_FIELDS = [
  'vsdcdate',
  'internalData',
  'signature',
  'receiptTotalCounter',
  'normalReceiptTypeCounter',
  'taxItems',
] as const;
