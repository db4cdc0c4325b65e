/**
 * The signed-in API token. It lives in session storage so it dies with the tab and is never
 * written anywhere else (no cookies, no local storage, no logs).
 */
const TOKEN_KEY = 'assisted-cloud.api-token';
const NOTICE_KEY = 'assisted-cloud.sign-in-notice';

export const API_ROOT = '/api/assisted-install';

export function currentToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/**
 * Forgets the token; `notice` is shown on the sign-in page that follows (why the session ended).
 * `endProviderSession`, a person's own sign-out, also ends their session at the identity provider
 * (its sign-out URL, which returns here), so the next sign-in on this browser asks for a password.
 */
export function signOut(notice?: string, endProviderSession?: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  if (notice) sessionStorage.setItem(NOTICE_KEY, notice);
  else sessionStorage.removeItem(NOTICE_KEY);
  window.location.assign(endProviderSession ?? '/');
}

/** Why the last session ended, once (read on the sign-in page that follows). */
export function takeSignInNotice(): string | null {
  const notice = sessionStorage.getItem(NOTICE_KEY);
  sessionStorage.removeItem(NOTICE_KEY);
  return notice;
}

/** The reason an API error body gives (`error.reason` or `infra_error.message`), else the status. */
export function reasonOf(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const { reason, message } = body as { reason?: unknown; message?: unknown };
    if (typeof reason === 'string' && reason) return reason;
    if (typeof message === 'string' && message) return message;
  }
  return `The server answered ${status}`;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON request to our API with the session's token; errors carry the server's reason. */
export async function apiRequest<T>(method: string, path: string, body?: unknown, token = currentToken()): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${API_ROOT}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) throw new ApiError(response.status, reasonOf(response.status, parsed));
  return parsed as T;
}
