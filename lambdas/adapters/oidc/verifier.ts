/**
 * The IdentityVerifier port with `jose`: a token's signature is checked against the keys the issuer
 * publishes (its JWKS: Cognito's `<issuer>/.well-known/jwks.json`, or any OIDC issuer's `jwks_uri`),
 * then its issuer, lifetime and, by the domain's rules, its audience or app client and token use.
 */
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { DomainError, unauthorized } from '../../domain/core/errors.js';
import {
  ACCEPTED_ALGORITHMS,
  CLOCK_TOLERANCE_SECONDS,
  MAX_IDENTITY_TOKEN_LENGTH,
  claimProblem,
  identityOf,
  issuerProblem,
  type IdentityProviderSettings,
  type VerifiedIdentity,
} from '../../domain/auth/identity.js';
import type { IdentityVerifier } from '../../ports/identity.js';
import { CACHE_SPECS, LocalCache } from '../../ports/local-caches.js';

/**
 * The issuer's key set, fetched on first use and kept by `jose` for the cache's bound (then fetched
 * again); a token naming a key the set lacks fetches it again at once, at most every 30 s.
 * With caches off, every token fetches the set.
 */
const keySets = new LocalCache<JWTVerifyGetKey>('identity-provider-keys');
const KEY_SET_MAX_AGE_MS = CACHE_SPECS['identity-provider-keys'].maxAgeMs!;
const KEY_SET_COOLDOWN_MS = 30_000;
const KEY_SET_TIMEOUT_MS = 5_000;

/** The issuer's keys could not be had (network, timeout, not a key set): not the caller's fault. */
class KeysUnavailable extends Error {}

function keySetOf(jwksUrl: string): JWTVerifyGetKey {
  const known = keySets.peek(jwksUrl);
  if (known) return known;
  const remote = createRemoteJWKSet(new URL(jwksUrl), {
    cacheMaxAge: KEY_SET_MAX_AGE_MS,
    cooldownDuration: KEY_SET_COOLDOWN_MS,
    timeoutDuration: KEY_SET_TIMEOUT_MS,
  });
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      // Answers about the token's key are the token's; every other failure is fetching the set.
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported)
        throw error;
      throw new KeysUnavailable('the key set could not be fetched', { cause: error });
    }
  };
  keySets.set(jwksUrl, getKey);
  return getKey;
}

const SIGN_IN_AGAIN = 'sign in again';
/** Three parts, as a JWT has (a part missing is refused before: domain/auth/api-token.ts), yet unreadable. */
const MALFORMED = 'The identity token is malformed: its header or payload is not base64url-encoded JSON; was it cut short or changed when copied?';

/** A reason the holder can act on for each refusal; never the token or its signature. */
function refusal(error: unknown, settings: IdentityProviderSettings): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof KeysUnavailable) {
    return new DomainError('unavailable', "The identity provider's signing keys could not be fetched, so the identity token cannot be checked now");
  }
  if (error instanceof errors.JWTExpired) {
    const exp = Number(error.payload.exp);
    const when = Number.isFinite(exp) ? ` at ${new Date(exp * 1000).toISOString()}` : '';
    return unauthorized(`The identity token expired${when}: ${SIGN_IN_AGAIN}`);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return unauthorized(issuerProblem({ iss: undefined }, settings)!);
    if (error.claim === 'nbf') return unauthorized('The identity token is not valid yet (nbf): check the clock of the machine that signed in');
    if (error.reason === 'missing') return unauthorized(`The identity token lacks the "${error.claim}" claim every token of the identity provider carries`);
    return unauthorized(`The identity token's "${error.claim}" claim is invalid: ${SIGN_IN_AGAIN}`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return unauthorized(`The identity token is not signed with an accepted algorithm (${ACCEPTED_ALGORITHMS.join(', ')})`);
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return unauthorized(
      'The identity token is signed with a key the identity provider does not publish (not in its JWKS): sign in again; a token of another user pool or issuer is not accepted',
    );
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return unauthorized("The identity token's signature does not verify against the identity provider's keys");
  }
  if (error instanceof errors.JOSEError) return unauthorized(MALFORMED);
  throw error;
}

/** Decoding the unverified token: jose reports an unreadable header as a TypeError. */
function readable<T>(decode: () => T): T {
  try {
    return decode();
  } catch {
    throw unauthorized(MALFORMED);
  }
}

export function createOidcIdentityVerifier(settings: IdentityProviderSettings): IdentityVerifier {
  const algorithms = [...ACCEPTED_ALGORITHMS];
  return {
    async verify(token: string): Promise<VerifiedIdentity> {
      try {
        if (token.length > MAX_IDENTITY_TOKEN_LENGTH) throw unauthorized(`The identity token is longer than ${MAX_IDENTITY_TOKEN_LENGTH} characters`);
        // Refusals read from the unverified token, before any key is fetched: what it claims to be
        // (algorithm, issuer) can only refuse it here, never accept it.
        const header = readable(() => decodeProtectedHeader(token));
        if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) {
          throw unauthorized(`The identity token is not signed with an accepted algorithm (${algorithms.join(', ')}); unsigned and HMAC tokens are refused`);
        }
        const problem = issuerProblem(
          readable(() => decodeJwt(token)),
          settings,
        );
        if (problem) throw unauthorized(problem);

        const { payload } = await jwtVerify(token, keySetOf(settings.jwksUrl), {
          issuer: settings.issuer,
          algorithms,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp', 'sub'],
        });
        const claimRefusal = claimProblem(payload, settings);
        if (claimRefusal) throw unauthorized(claimRefusal);
        return identityOf(payload as typeof payload & { iss: string; sub: string });
      } catch (error) {
        throw refusal(error, settings);
      }
    },
  };
}
