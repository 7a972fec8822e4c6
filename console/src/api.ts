// The console's only way out: the gateway's own partner and operator APIs, with the secret from
// the session (memory and this tab's sessionStorage; never a URL, never a cookie).

export type Role = 'partner' | 'operator';

export interface Session {
  role: Role;
  secret: string;
}

const STORAGE_KEY = 'fiscal-gateway.console.session';

export function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<Session>;
    return (parsed.role === 'partner' || parsed.role === 'operator') && typeof parsed.secret === 'string' ? { role: parsed.role, secret: parsed.secret } : undefined;
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
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string }; message?: string };
    code = body.error?.code;
    message = body.error?.message ?? body.message ?? message;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiProblem(response.status, code, message);
}

export class Api {
  constructor(readonly session: Session) {}

  private async request(method: string, path: string, accept = 'application/json', json?: unknown): Promise<Response> {
    let response: Response;
    const headers: Record<string, string> = { authorization: `Bearer ${this.session.secret}`, accept, ...(json === undefined ? {} : { 'content-type': 'application/json' }) };
    try {
      response = await fetch(path, { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer', ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
    } catch {
      throw new ApiProblem(0, 'network', 'The gateway could not be reached. Check your connection and try again.');
    }
    if (!response.ok) throw await problemOf(response);
    return response;
  }

  async get<T>(path: string): Promise<T> {
    return (await (await this.request('GET', path)).json()) as T;
  }

  async post<T>(path: string): Promise<T> {
    return (await (await this.request('POST', path)).json()) as T;
  }

  async postJson<T>(path: string, body: unknown): Promise<T> {
    return (await (await this.request('POST', path, 'application/json', body)).json()) as T;
  }

  async blob(path: string, accept: string): Promise<Blob> {
    return (await this.request('GET', path, accept)).blob();
  }
}

/** Builds a query string from the defined values only. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
