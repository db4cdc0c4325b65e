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
import { RecentReads } from './recent-reads.js';

const ISSUER = 'assisted-cloud';

interface Keys {
  signing: KeyObject;
  verifying: KeyObject;
  /**
   * Payloads whose signature these keys already verified, by token: an ES256 verification per
   * poll is most of a poll's CPU. A signature does not change; the expiry is checked on every use.
   */
  verified: RecentReads<Record<string, unknown>>;
}

const cache = new Map<string, Keys>();

function keysFrom(pem: string | undefined): Keys {
  if (!pem) throw new Error('EC_PRIVATE_KEY_PEM is not configured: agent tokens can be neither issued nor checked');
  let keys = cache.get(pem);
  if (!keys) {
    const signing = createPrivateKey(pem);
    keys = { signing, verifying: createPublicKey(signing), verified: new RecentReads(10 * 60_000) };
    cache.set(pem, keys);
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

/**
 * Infra-envs seen to exist, by org/id, with when that was seen. Agents poll every few seconds;
 * re-reading the infra-env on each poll would double the reads on the hottest path. A deleted
 * infra-env's token keeps authenticating for at most this long, and finds nothing to act on.
 */
const EXISTENCE_TTL_MS = 60_000;
const seenInfraEnvs = new RecentReads<boolean>(EXISTENCE_TTL_MS);

async function infraEnvExists(store: Store, orgId: string, infraEnvId: string): Promise<boolean> {
  const key = `${orgId}/${infraEnvId}`;
  const exists = await seenInfraEnvs.get(key, async () => !!(await store.infraEnvs.get({ orgId, infraEnvId })));
  // Only existence is remembered: an infra-env not found is looked up again next time.
  if (!exists) seenInfraEnvs.forget(key);
  return exists;
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
  if (typeof orgId !== 'string' || typeof infraEnvId !== 'string') throw unauthorized('The agent token is not valid');
  if (!(await infraEnvExists(deps.store, orgId, infraEnvId))) throw unauthorized('The agent token names an infra-env that no longer exists');
  return { kind: 'agent', orgId, infraEnvId };
}
