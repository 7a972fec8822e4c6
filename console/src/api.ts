// The console's only way out: the gateway's own APIs. Partners and the operator send their secret
// (memory and this tab's sessionStorage; never a URL, never a cookie); a merchant's people sign in
// with email and password and are carried by the gateway's HttpOnly session cookie, with the
// session's CSRF token (memory and sessionStorage, re-read from GET /api/v1/account/me) on writes.

export type Role = 'partner' | 'operator' | 'merchant';

export type Session = { role: 'partner' | 'operator'; secret: string } | { role: 'merchant'; csrf: string };

const STORAGE_KEY = 'fiscal-gateway.console.session';

export function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as { role?: string; secret?: unknown; csrf?: unknown };
    if ((parsed.role === 'partner' || parsed.role === 'operator') && typeof parsed.secret === 'string')
      return { role: parsed.role, secret: parsed.secret };
    if (parsed.role === 'merchant' && typeof parsed.csrf === 'string') return { role: 'merchant', csrf: parsed.csrf };
    return undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session | undefined): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

export interface Page<T> {
  data: T[];
  meta: { page: number; perPage: number; total: number; lastPage: number };
}

async function problemOf(response: Response): Promise<ApiProblem> {
  let message = `The gateway answered ${response.status}.`;
  let code: string | undefined;
  let field: string | undefined;
  try {
    const body = (await response.json()) as {
      error?: { code?: string; message?: string };
      message?: string;
      errors?: Record<string, string[]>;
    };
    code = body.error?.code;
    message = body.error?.message ?? body.message ?? message;
    field = body.errors ? Object.keys(body.errors)[0] : undefined;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiProblem(response.status, code, message, field);
}

export interface RequestOptions {
  accept?: string;
  json?: unknown;
  headers?: Record<string, string>;
}

/** Calls without any credential: sign-in, sign-up, the mailed links. The session cookie rides along when there is one. */
export async function publicRequest<T>(method: string, path: string, json?: unknown): Promise<T> {
  return new Api(undefined).send<T>(method, path, { json });
}

export class Api {
  constructor(
    readonly session: Session | undefined,
    /** Called when the gateway no longer knows the merchant's session (401): signed out elsewhere, expired. */
    private readonly onSessionEnded?: () => void,
  ) {}

  private async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const { accept = 'application/json', json, headers: extra = {} } = options;
    const headers: Record<string, string> = { accept, ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...extra };
    const session = this.session;
    if (session && session.role !== 'merchant') headers.authorization = `Bearer ${session.secret}`;
    if (session?.role === 'merchant' && method !== 'GET') headers['x-csrf-token'] = session.csrf;
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        cache: 'no-store',
        // The merchant's session is the gateway's cookie; a partner's or the operator's never is.
        credentials: session && session.role !== 'merchant' ? 'omit' : 'same-origin',
        referrerPolicy: 'no-referrer',
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    } catch {
      throw new ApiProblem(0, 'network', 'The gateway could not be reached. Check your connection and try again.');
    }
    if (!response.ok) {
      if (response.status === 401 && session?.role === 'merchant') this.onSessionEnded?.();
      throw await problemOf(response);
    }
    return response;
  }

  async send<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(method, path, options);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  async post<T>(path: string): Promise<T> {
    return this.send<T>('POST', path);
  }

  async postJson<T>(path: string, body: unknown, headers?: Record<string, string>): Promise<T> {
    return this.send<T>('POST', path, { json: body, ...(headers ? { headers } : {}) });
  }

  async patchJson<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('PATCH', path, { json: body });
  }

  async delete<T>(path: string): Promise<T> {
    return this.send<T>('DELETE', path);
  }

  async blob(path: string, accept: string): Promise<Blob> {
    return (await this.request('GET', path, { accept })).blob();
  }

  /** A file and the name the gateway gives it (`Content-Disposition: …; filename="…"`), for saving it under that name. */
  async file(path: string, accept: string): Promise<{ blob: Blob; name: string | undefined }> {
    const response = await this.request('GET', path, { accept });
    const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
    return { blob: await response.blob(), name };
  }
}

/** Builds a query string from the defined values only. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
