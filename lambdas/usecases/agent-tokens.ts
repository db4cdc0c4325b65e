/**
 * Agent credentials as upstream's local auth mode issues them: an ES256 JWT naming one infra-env,
 * embedded in that infra-env's discovery image and sent by the agent as X-Secret-Key. Our token
 * also names the organisation, so verifying it is one read on an organisation-first key.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { unauthorized } from '../domain/errors.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';
import { LocalCache, RecentReads } from '../ports/local-caches.js';

const ISSUER = 'assisted-cloud';

interface Keys {
  signing: KeyObject;
  verifying: KeyObject;
  /** Payloads whose signature these keys already verified, by token. */
  verified: RecentReads<Record<string, unknown>>;
}

const signingKeys = new LocalCache<Keys>('agent-signing-keys');

function keysFrom(pem: string | undefined): Keys {
  if (!pem) throw new Error('EC_PRIVATE_KEY_PEM is not configured: agent tokens can be neither issued nor checked');
  let keys = signingKeys.peek(pem);
  if (!keys) {
    const signing = createPrivateKey(pem);
    keys = { signing, verifying: createPublicKey(signing), verified: new RecentReads('agent-token-signatures') };
    signingKeys.set(pem, keys);
  }
  return keys;
}

export async function issueAgentToken(signingKeyPem: string | undefined, claims: { orgId: string; infraEnvId: string }): Promise<string> {
  return new SignJWT({ infra_env_id: claims.infraEnvId, org_id: claims.orgId })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ISSUER)
    .setIssuedAt()
    .sign(keysFrom(signingKeyPem).signing);
}

/** Infra-envs seen to exist, by org/id: only existence is remembered, a missing one is looked up every time. */
const seenInfraEnvs = new RecentReads<boolean>('infra-env-existence');

function infraEnvExists(store: Store, orgId: string, infraEnvId: string): Promise<boolean> {
  return seenInfraEnvs.get(`${orgId}/${infraEnvId}`, async () => !!(await store.infraEnvs.get({ orgId, infraEnvId })), { keep: (exists) => exists });
}

/** Accepts only ES256 tokens we signed whose infra-env exists in their organisation. */
export async function authenticateAgent(
  deps: { store: Store; config: { agentSigningKeyPem?: string } },
  secretKey: string | undefined,
): Promise<Principal> {
  if (!secretKey) throw unauthorized('X-Secret-Key header is required for agent requests');
  let payload: Record<string, unknown>;
  try {
    const keys = keysFrom(deps.config.agentSigningKeyPem);
    payload = await keys.verified.get(secretKey, async () => (await jwtVerify(secretKey, keys.verifying, { algorithms: ['ES256'], issuer: ISSUER })).payload);
    if (typeof payload.exp === 'number' && payload.exp * 1000 <= Date.now()) throw new Error('expired');
  } catch {
    throw unauthorized('The agent token is not valid');
  }
  const orgId = payload.org_id;
  const infraEnvId = payload.infra_env_id;
  // A download URL's token (a `use` claim) opens its infra-env's files, never the agent's operations.
  if (typeof orgId !== 'string' || typeof infraEnvId !== 'string' || payload.use !== undefined) throw unauthorized('The agent token is not valid');
  if (!(await infraEnvExists(deps.store, orgId, infraEnvId))) throw unauthorized('The agent token names an infra-env that no longer exists');
  return { kind: 'agent', orgId, infraEnvId };
}

const URL_TOKEN_USE = 'infra-env-url';

/**
 * The `api_key` of a pre-signed infra-env URL (upstream's urlAuth): signed as agent tokens are,
 * naming the infra-env, for downloads only (its `use` claim), and expiring.
 */
export async function issueInfraEnvUrlToken(signingKeyPem: string | undefined, claims: { orgId: string; infraEnvId: string; expiresAt: Date }): Promise<string> {
  return new SignJWT({ infra_env_id: claims.infraEnvId, org_id: claims.orgId, use: URL_TOKEN_USE })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
    .sign(keysFrom(signingKeyPem).signing);
}

/**
 * A pre-signed URL's `api_key`: valid for the infra-env it names, in the path it is used on, as
 * that infra-env's agent would be (its operations only read the infra-env and its files).
 */
export async function authenticateInfraEnvUrl(
  deps: { store: Store; config: { agentSigningKeyPem?: string } },
  apiKey: string,
  pathInfraEnvId: string | undefined,
): Promise<Principal> {
  let payload: Record<string, unknown>;
  try {
    payload = (await jwtVerify(apiKey, keysFrom(deps.config.agentSigningKeyPem).verifying, { algorithms: ['ES256'], issuer: ISSUER })).payload;
  } catch (error) {
    const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
    throw unauthorized(expired ? 'This pre-signed URL has expired; ask for a new one' : 'The pre-signed URL is not valid');
  }
  const { org_id: orgId, infra_env_id: infraEnvId } = payload;
  if (payload.use !== URL_TOKEN_USE || typeof orgId !== 'string' || typeof infraEnvId !== 'string') throw unauthorized('The pre-signed URL is not valid');
  if (infraEnvId !== pathInfraEnvId) throw unauthorized('This pre-signed URL is for another infra-env');
  if (!(await infraEnvExists(deps.store, orgId, infraEnvId))) throw unauthorized('This pre-signed URL names an infra-env that no longer exists');
  return { kind: 'agent', orgId, infraEnvId };
}
