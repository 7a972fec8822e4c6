// Typed access to the fiscal-gateway API: openapi-fetch clients over the types that
// `npm run generate` writes to schema.ts from the gateway's OpenAPI document, one constructor
// per credential, and the webhook signature check.
import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export {
  DEFAULT_TOLERANCE_SEC,
  SIGNATURE_HEADER,
  verifyWebhook,
  type VerifyFailure,
  type VerifyOptions,
  type VerifyResult,
} from './webhooks.js';

/**
 * An openapi-fetch client for every operation of the API: `GET`, `POST`, `PATCH`, `DELETE`
 * take the path as the document writes it and answer `{ data, error, response }`.
 */
export type GatewayClient = Client<paths>;

export interface ConnectionOptions {
  /** Where the gateway answers, e.g. `https://gateway.example.com` (paths start with /api or /zm). */
  baseUrl: string;
  /** Headers sent with every request, e.g. `{ 'X-Branch': '001' }`. */
  headers?: Record<string, string>;
  /** A fetch to send requests with instead of the global one. */
  fetch?: ClientOptions['fetch'];
}

export interface TenantClientOptions extends ConnectionOptions {
  /** A tenant token (`tt_…`): the merchant's sales, customers, items, `/me`. */
  token: string;
}

export interface PartnerClientOptions extends ConnectionOptions {
  /** A partner secret key (`sk_live_…` or `sk_test_…`): tenants, devices, credentials, webhook endpoints. */
  secretKey: string;
}

export interface FiscalisationClientOptions extends ConnectionOptions {
  /** A fiscalisation key (`pk_…`), sent as `X-Api-Key`: the `/zm/api` till surface. */
  apiKey: string;
  /** The device a till files through, sent as `X-SdcId`; every call but `GET /zm/api/Branches` needs it. */
  sdcId?: string;
}

/** A merchant's client (tenant token). */
export function createTenantClient({ token, ...connection }: TenantClientOptions): GatewayClient {
  return connect('createTenantClient', connection, { Authorization: `Bearer ${required('createTenantClient', 'token', token)}` });
}

/** A partner's client (partner secret key). */
export function createPartnerClient({ secretKey, ...connection }: PartnerClientOptions): GatewayClient {
  return connect('createPartnerClient', connection, { Authorization: `Bearer ${required('createPartnerClient', 'secretKey', secretKey)}` });
}

/** A till's client on `/zm/api` (fiscalisation key and the device it files through). */
export function createFiscalisationClient({ apiKey, sdcId, ...connection }: FiscalisationClientOptions): GatewayClient {
  const fn = 'createFiscalisationClient';
  const headers: Record<string, string> = { 'X-Api-Key': required(fn, 'apiKey', apiKey) };
  if (sdcId !== undefined) headers['X-SdcId'] = required(fn, 'sdcId', sdcId);
  return connect(fn, connection, headers);
}

function connect(fn: string, { baseUrl, headers, fetch }: ConnectionOptions, credential: Record<string, string>): GatewayClient {
  return createFetchClient<paths>({
    baseUrl: required(fn, 'baseUrl', baseUrl).replace(/\/+$/, ''),
    headers: { ...headers, ...credential },
    ...(fetch ? { fetch } : {}),
  });
}

/** A missing credential is a mistake in the caller's set-up: say so now rather than with a 401 later. */
function required(fn: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`${fn}: \`${name}\` must be a non-empty string`);
  return value;
}
