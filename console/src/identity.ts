/**
 * Signing in through the identity provider (Amazon Cognito's managed login in AWS, the local
 * stand-in on one machine): OAuth 2.0 authorization code with PKCE for a public client, the way
 * RFC 7636 and the OAuth 2.0 for Browser-Based Apps practice describe it. The provider and client
 * come from the API (GET /v2/sign-in/settings), so the build knows none. The ID token it ends with
 * is the session's bearer credential, kept as an API token is (session.ts).
 */
import { safeReturnPath } from './return-path';
import { CLUSTERS_PATH } from './routes';
import { API_ROOT, storeToken } from './session';

export const CALLBACK_PATH = '/sign-in/callback';
const PENDING_KEY = 'assisted-cloud.sign-in-pending';
const JOIN_CODE_KEY = 'assisted-cloud.join-code';

export interface SignInSettings {
  identity_provider: boolean;
  client_id?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  end_session_endpoint?: string;
  scopes?: string[];
}

export async function signInSettings(): Promise<SignInSettings> {
  const response = await fetch(`${API_ROOT}/v2/sign-in/settings`, { headers: { Accept: 'application/json' } });
  if (!response.ok) return { identity_provider: false };
  return (await response.json()) as SignInSettings;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomText = (length: number) => base64url(crypto.getRandomValues(new Uint8Array(length)));

/** Sends the browser to the provider's sign-in (or sign-up) page; it comes back to CALLBACK_PATH. */
export async function startIdentitySignIn(settings: SignInSettings, returnTo: string): Promise<void> {
  if (!settings.authorization_endpoint || !settings.client_id) throw new Error('The service has no identity provider configured');
  const verifier = randomText(48);
  const state = randomText(24);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo }));
  const url = new URL(settings.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: settings.client_id,
    redirect_uri: `${window.location.origin}${CALLBACK_PATH}`,
    scope: (settings.scopes ?? ['openid', 'email']).join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url.toString());
}

/**
 * On CALLBACK_PATH: checks the state this tab sent, exchanges the code (with the verifier only
 * this tab holds) for tokens, keeps the ID token, and answers where to go next.
 */
export async function completeIdentitySignIn(): Promise<string> {
  const params = new URLSearchParams(window.location.search);
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as { verifier: string; state: string; returnTo: string } | null;
  sessionStorage.removeItem(PENDING_KEY);
  if (params.get('error')) throw new Error(params.get('error_description') ?? params.get('error') ?? 'The identity provider refused the sign-in');
  if (!pending || params.get('state') !== pending.state) throw new Error('This sign-in was not started from this tab, or it was used already: sign in again');
  const settings = await signInSettings();
  if (!settings.token_endpoint || !settings.client_id) throw new Error('The service has no identity provider configured');
  const response = await fetch(settings.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
      redirect_uri: `${window.location.origin}${CALLBACK_PATH}`,
      client_id: settings.client_id,
      code_verifier: pending.verifier,
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { id_token?: string; error?: string; error_description?: string };
  if (!response.ok || !body.id_token) throw new Error(body.error_description ?? body.error ?? `The identity provider answered ${response.status}`);
  storeToken(body.id_token);
  // Checked again on the way back: what the tab kept could have been written by other script.
  return safeReturnPath(pending.returnTo, window.location.origin, CLUSTERS_PATH);
}

/**
 * Where a person's sign-out goes: the provider's sign-out URL with the parameters of both dialects
 * (OpenID Connect RP-initiated logout: client_id + post_logout_redirect_uri; Cognito's /logout:
 * client_id + logout_uri), back to the console. Undefined for API-token sessions (a token is not a JWT).
 */
export async function providerSignOutUrl(token: string | null): Promise<string | undefined> {
  if (token?.split('.').length !== 3) return undefined;
  const settings = await signInSettings().catch(() => undefined);
  if (!settings?.end_session_endpoint || !settings.client_id) return undefined;
  const back = `${window.location.origin}/`;
  const url = new URL(settings.end_session_endpoint);
  url.search = new URLSearchParams({ client_id: settings.client_id, post_logout_redirect_uri: back, logout_uri: back }).toString();
  return url.toString();
}

/** An invitation code the person opened a join link with, kept across the sign-in round trip. */
export const rememberJoinCode = (code: string) => sessionStorage.setItem(JOIN_CODE_KEY, code);
export function takeJoinCode(): string | null {
  const code = sessionStorage.getItem(JOIN_CODE_KEY);
  sessionStorage.removeItem(JOIN_CODE_KEY);
  return code;
}
