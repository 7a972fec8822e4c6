// The KRA eTIMS client: one call per endpoint over the shared transport, `POST {base}{path}` with
// JSON. OSCU: the headers `tin`, `bhfId`, `cmcKey` on every call but initialisation, the body
// without them. VSCU: `tin` and `bhfId` in every body, no headers. Either: `Authorization` when
// the device carries an API credential. Every answer is read into a KraOutcome; it never throws
// for anything the network or KRA does, and no secret (cmcKey, token) reaches a message.
import type { UnreachableOutcome } from '../outcome.ts';
import type { AuthorityDevice, CallOptions } from '../port/device.ts';
import { createTransport, unreachable, type Transport, type TransportOptions } from '../transport.ts';
import { joinVsdcUrl } from '../url.ts';
import { classifyKraResult, DUPLICATE_CODES, normaliseResultCode } from './result-codes.ts';
import { KRA_SETTINGS } from './settings.ts';
import { createTokenCache, type TokenCache } from './token.ts';
import { KRA_PATHS, type KraEndpoint, type KraEnvelope, type KraProtocol } from './wire.ts';

interface ResultMeta {
  resultCd: string;
  resultMsg: string;
  resultDt: string | null;
}

export type KraOutcome =
  | ({ kind: 'ok'; data: unknown } & ResultMeta)
  | ({ kind: 'empty' } & ResultMeta)
  | ({ kind: 'already_installed' } & ResultMeta)
  | ({ kind: 'duplicate' } & ResultMeta)
  | { kind: 'rejected'; code: string; message: string; resultDt: string | null }
  | UnreachableOutcome;

type Call = (device: AuthorityDevice, body: object, options?: CallOptions) => Promise<KraOutcome>;

export type KraClient = Readonly<Record<KraEndpoint, Call>> & { readonly protocol: KraProtocol; close(): Promise<void> };

/** An envelope is a JSON object with a result code; anything else proves nothing about KRA. */
function parseKraEnvelope(text: string): KraEnvelope | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const raw = parsed as Record<string, unknown>;
  const resultCd = normaliseResultCode(raw.resultCd);
  if (resultCd === null) return null;
  return {
    resultCd,
    resultMsg: typeof raw.resultMsg === 'string' ? raw.resultMsg : '',
    resultDt: typeof raw.resultDt === 'string' ? raw.resultDt : typeof raw.resultDt === 'number' ? String(raw.resultDt) : null,
    data: raw.data ?? null,
  };
}

function said(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** The device's secrets, as they must never appear in what the gateway keeps or shows. */
function secretsOf(device: AuthorityDevice): string[] {
  const secrets = [device.unitKey ?? ''];
  const credential = device.apiCredential;
  if (credential?.kind === 'bearer') secrets.push(credential.token);
  if (credential?.kind === 'client') secrets.push(credential.clientSecret);
  return secrets.filter((s) => s.length >= 4);
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, secret) => t.split(secret).join('[redacted]'), text);
}

/** An HTTP answer read as a KRA outcome (status first, then the envelope's code for the endpoint). */
export function interpretKraReply(
  endpoint: KraEndpoint,
  status: number,
  text: string,
  duplicates: ReadonlySet<string> = DUPLICATE_CODES,
): KraOutcome {
  if (status >= 500 || status === 429)
    return unreachable('http_error', `HTTP ${status}${said(text) ? `: ${said(text)}` : ''}`, { httpStatus: status });
  const envelope = parseKraEnvelope(text);
  if (envelope === null || !((status >= 200 && status < 300) || status === 400)) {
    if (status === 400)
      return {
        kind: 'rejected',
        code: '400',
        message: `KRA refused the request body (HTTP 400)${said(text) ? `: ${said(text)}` : ''}`,
        resultDt: null,
      };
    if (status >= 200 && status < 300)
      return unreachable('not_an_envelope', `HTTP ${status} without a KRA envelope${said(text) ? `: ${said(text)}` : ''}`, {
        httpStatus: status,
      });
    return unreachable('http_error', `HTTP ${status}${said(text) ? `: ${said(text)}` : ''}`, { httpStatus: status });
  }
  const meta: ResultMeta = { resultCd: envelope.resultCd, resultMsg: envelope.resultMsg, resultDt: envelope.resultDt };
  switch (classifyKraResult(envelope.resultCd, endpoint, duplicates)) {
    case 'ok':
      return { kind: 'ok', data: envelope.data, ...meta };
    case 'empty':
      return { kind: 'empty', ...meta };
    case 'already_installed':
      return { kind: 'already_installed', ...meta };
    case 'duplicate':
      return { kind: 'duplicate', ...meta };
    case 'unreachable':
      return unreachable('authority_unreachable', `${envelope.resultCd} ${envelope.resultMsg}`.trim(), { resultCd: envelope.resultCd });
    case 'rejected':
      return { kind: 'rejected', code: envelope.resultCd, message: envelope.resultMsg, resultDt: envelope.resultDt };
  }
}

function scrubbed(outcome: KraOutcome, secrets: readonly string[]): KraOutcome {
  if (secrets.length === 0) return outcome;
  if (outcome.kind === 'rejected') return { ...outcome, message: redact(outcome.message, secrets) };
  if (outcome.kind === 'unreachable') return { ...outcome, detail: redact(outcome.detail, secrets) };
  if ('resultMsg' in outcome) return { ...outcome, resultMsg: redact(outcome.resultMsg, secrets) };
  return outcome;
}

export interface KraClientOptions {
  /** The codes a sale's duplicate number is answered with (default: the protocol's setting). */
  duplicateCodes?: ReadonlySet<string>;
  tokens?: TokenCache;
}

/** The client of one protocol over a transport (a context shares one), or over one of its own. */
export function createKraClient(protocol: KraProtocol, over: Transport | TransportOptions = {}, options: KraClientOptions = {}): KraClient {
  const transport = 'post' in over ? over : createTransport(over);
  const tokens = options.tokens ?? createTokenCache();
  const duplicates = options.duplicateCodes ?? KRA_SETTINGS[protocol].duplicateCodes;

  async function headersOf(
    endpoint: KraEndpoint,
    device: AuthorityDevice,
    callOptions: CallOptions,
  ): Promise<{ headers: Record<string, string> } | { failed: KraOutcome }> {
    const headers: Record<string, string> = {};
    if (protocol === 'oscu' && endpoint !== 'selectInitOsdcInfo') {
      headers.tin = device.tpin;
      headers.bhfId = device.branch;
      if (device.unitKey) headers.cmcKey = device.unitKey;
    }
    if (device.apiCredential) {
      const auth = await tokens.authorization(device.apiCredential, callOptions);
      if (auth.kind !== 'ok') return { failed: auth.kind === 'rejected' ? { ...auth, resultDt: null } : auth };
      headers.authorization = auth.token;
    }
    return { headers };
  }

  function bodyOf(endpoint: KraEndpoint, device: AuthorityDevice, body: object): object {
    if (protocol === 'vscu' || endpoint === 'selectInitOsdcInfo') return { tin: device.tpin, bhfId: device.branch, ...body };
    return body;
  }

  async function call(endpoint: KraEndpoint, device: AuthorityDevice, body: object, callOptions: CallOptions = {}): Promise<KraOutcome> {
    const path = KRA_PATHS[protocol][endpoint];
    if (path === null)
      return { kind: 'rejected', code: 'unsupported', message: `${protocol.toUpperCase()} has no ${endpoint}`, resultDt: null };
    let url: string;
    try {
      url = new URL(joinVsdcUrl(device.baseUrl, path)).toString();
    } catch {
      return unreachable('network_error', `invalid base URL "${device.baseUrl}"`);
    }
    const prepared = await headersOf(endpoint, device, callOptions);
    if ('failed' in prepared) return prepared.failed;
    const answer = await transport.post(url, JSON.stringify(bodyOf(endpoint, device, body)), prepared.headers, callOptions);
    const secrets = secretsOf(device);
    if (answer.kind !== 'answered') return scrubbed(answer, secrets);
    if (answer.status === 401 || answer.status === 403) {
      // KRA's API gateway refused the token: a fetched one is fetched again on the next call.
      if (device.apiCredential?.kind === 'client') {
        tokens.forget(device.apiCredential);
        return unreachable(
          'http_error',
          `HTTP ${answer.status}: the API gateway refused the token; a new one is fetched on the next call`,
          { httpStatus: answer.status },
        );
      }
      return {
        kind: 'rejected',
        code: String(answer.status),
        message: `KRA's API gateway refused the call (HTTP ${answer.status}): check the device's API credential`,
        resultDt: null,
      };
    }
    return scrubbed(interpretKraReply(endpoint, answer.status, answer.text, duplicates), secrets);
  }

  const endpoints = Object.keys(KRA_PATHS[protocol]) as KraEndpoint[];
  const calls = Object.fromEntries(
    endpoints.map((endpoint) => [endpoint, (device: AuthorityDevice, body: object, o?: CallOptions) => call(endpoint, device, body, o)]),
  ) as Record<KraEndpoint, Call>;
  return { ...calls, protocol, close: () => transport.close() };
}
