import type { VerifiedIdentity } from '../domain/auth/identity.js';

export type { VerifiedIdentity } from '../domain/auth/identity.js';

/**
 * Verifies a token of the identity provider the service trusts (Amazon Cognito in AWS, any OIDC
 * issuer): signature against the issuer's published keys, issuer, audience or app client, token use,
 * expiry and not-before. Refusals are DomainErrors: `unauthorized` (401) with a reason the holder can
 * act on, or `unavailable` (503) when the issuer's keys cannot be fetched. No message carries the token.
 */
export interface IdentityVerifier {
  verify(token: string): Promise<VerifiedIdentity>;
}
