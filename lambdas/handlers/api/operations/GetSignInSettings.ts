import { json } from '../../../platform/http.js';
import type { PublicOperation } from '../context.js';

/** How the console signs people in: the identity provider's public settings (no secret), or none. */
export const GetSignInSettings: PublicOperation = async ({ ports }) => {
  const provider = ports.config.identityProvider;
  const signIn = provider?.console;
  if (!provider || !signIn) return json(200, { identity_provider: false });
  return json(200, {
    identity_provider: true,
    issuer: provider.issuer,
    client_id: signIn.clientId,
    authorization_endpoint: signIn.authorizationUrl,
    token_endpoint: signIn.tokenUrl,
    ...(signIn.signOutUrl ? { end_session_endpoint: signIn.signOutUrl } : {}),
    scopes: signIn.scopes,
  });
};
