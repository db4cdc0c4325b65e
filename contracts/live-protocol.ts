/**
 * How a browser authenticates its live socket (docs/api.md "Live changes"). A browser cannot set
 * headers on a WebSocket, and a token in the URL would be written to CloudFront's and API
 * Gateway's access logs, so the console offers two subprotocols: `assisted-live` and
 * `bearer.<token>`. The service takes the token from the second and selects the first, so the token
 * is never echoed back and never part of a URL.
 */
export const LIVE_SUBPROTOCOL = 'assisted-live';
export const BEARER_SUBPROTOCOL_PREFIX = 'bearer.';

/** The subprotocols a browser offers for `token` (API tokens and session JWTs are valid subprotocol characters). */
export const liveSubprotocols = (token: string): string[] => [LIVE_SUBPROTOCOL, `${BEARER_SUBPROTOCOL_PREFIX}${token}`];

/** The bearer token a `Sec-WebSocket-Protocol` header offers, if any. */
export function bearerFromSubprotocols(header: string | undefined): string | undefined {
  for (const offered of (header ?? '').split(',')) {
    const protocol = offered.trim();
    if (protocol.startsWith(BEARER_SUBPROTOCOL_PREFIX) && protocol.length > BEARER_SUBPROTOCOL_PREFIX.length)
      return protocol.slice(BEARER_SUBPROTOCOL_PREFIX.length);
  }
  return undefined;
}

/** Whether a `Sec-WebSocket-Protocol` header offers `assisted-live` (then the answer must select it). */
export const offersLiveSubprotocol = (header: string | undefined): boolean => (header ?? '').split(',').some((offered) => offered.trim() === LIVE_SUBPROTOCOL);
