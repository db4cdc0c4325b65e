/**
 * Agent credentials as upstream's local auth mode issues them: an ES256 JWT naming one infra-env,
 * embedded in that infra-env's discovery image and sent by the agent as X-Secret-Key. Our token
 * also names the organisation, so verifying it is one read on an organisation-first key, and
 * carries an expiry and the infra-env's token epoch (domain/auth/agent-token.ts has the rules;
 * docs/api.md, "Agent tokens", the model).
 */
import { isJsonObject, nonEmptyText } from '../../contracts/json-shapes.js';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SignJWT, compactVerify, errors, jwtVerify } from 'jose';
import { DEFAULT_AGENT_TOKEN_TTL_SECONDS, agentCallNeeds, judgeAgentCall, type AgentCallContext, type TokenStanding } from '../domain/auth/agent-token.js';
import type { InfraEnv } from '../domain/core/entities.js';
import { DomainError, unauthorized } from '../domain/core/errors.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { AgentPrincipal, Principal } from './principal.js';
import { LocalCache, RecentReads } from '../ports/local-caches.js';

const ISSUER = 'assisted-cloud';

interface Keys {
  signing: KeyObject;
  verifying: KeyObject;
  /** Payloads whose signature these keys already verified, by token (expiry is checked on every use). */
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

/** The epoch of an infra-env's agent tokens: regenerating its signing key moves it on. */
export const agentTokenEpochOf = (infraEnv: Pick<InfraEnv, 'agentTokenEpoch'>): number => infraEnv.agentTokenEpoch ?? 0;

/**
 * An agent token for an infra-env, valid until `expiresAt` (default: the default lifetime from
 * now) and for the infra-env's current token `epoch` (default 0, an infra-env whose key was never
 * regenerated).
 */
export async function issueAgentToken(
  signingKeyPem: string | undefined,
  claims: { orgId: string; infraEnvId: string; epoch?: number; expiresAt?: Date },
): Promise<string> {
  const expiresAt = claims.expiresAt ?? new Date(Date.now() + DEFAULT_AGENT_TOKEN_TTL_SECONDS * 1000);
  return new SignJWT({ infra_env_id: claims.infraEnvId, org_id: claims.orgId, epoch: claims.epoch ?? 0 })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(keysFrom(signingKeyPem).signing);
}

/** The agent token an infra-env's image or ignition made now carries. */
export function issueInfraEnvAgentToken(
  signingKeyPem: string | undefined,
  infraEnv: Pick<InfraEnv, 'orgId' | 'infraEnvId' | 'agentTokenEpoch'>,
  expiresAt: Date,
): Promise<string> {
  return issueAgentToken(signingKeyPem, { orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId, epoch: agentTokenEpochOf(infraEnv), expiresAt });
}

/** What authentication needs of an infra-env: that it exists, its token epoch and its cluster. */
interface InfraEnvStanding {
  epoch: number;
  clusterId?: string;
}

/**
 * Infra-envs seen to exist, by org/id, with their token epoch: a missing one is looked up every
 * time. Deleting an infra-env or regenerating its key is seen at once by the instance that did it
 * and within the cache's bound (local-caches.json) by every other.
 */
const seenInfraEnvs = new RecentReads<InfraEnvStanding | undefined>('infra-env-existence');

function infraEnvStanding(store: Store, orgId: string, infraEnvId: string): Promise<InfraEnvStanding | undefined> {
  return seenInfraEnvs.get(
    `${orgId}/${infraEnvId}`,
    async () => {
      const infraEnv = await store.infraEnvs.get({ orgId, infraEnvId });
      return infraEnv ? { epoch: agentTokenEpochOf(infraEnv), ...(infraEnv.clusterId ? { clusterId: infraEnv.clusterId } : {}) } : undefined;
    },
    { keep: (standing) => standing !== undefined },
  );
}

/** An agent of this infra-env, with the cluster authentication found it bound to. */
function agentPrincipal(orgId: string, infraEnvId: string, standing: InfraEnvStanding): AgentPrincipal {
  return { kind: 'agent', orgId, infraEnvId, infraEnvCluster: standing.clusterId ? { clusterId: standing.clusterId } : {} };
}

/** This instance forgets what it knew of an infra-env's tokens (it was deleted, or its key regenerated). */
export function forgetInfraEnvTokens(orgId: string, infraEnvId: string): void {
  seenInfraEnvs.forget(`${orgId}/${infraEnvId}`);
}

/** The call an agent token is presented for, as the router sees it. */
export interface AgentCall {
  operationId?: string;
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
}

const invalid = () => unauthorized('The agent token is not valid: send the X-Secret-Key the discovery image or discovery.ign gave the host');

/** The signed payload of an ES256 token of ours, whatever its expiry (checked by the caller). */
async function verifiedPayload(keys: Keys, token: string): Promise<Record<string, unknown>> {
  try {
    return await keys.verified.get(token, async () => {
      const { payload } = await compactVerify(token, keys.verifying, { algorithms: ['ES256'] });
      const claims: unknown = JSON.parse(Buffer.from(payload).toString('utf8'));
      if (!isJsonObject(claims) || claims.iss !== ISSUER) throw new Error('not ours');
      return claims;
    });
  } catch {
    throw invalid();
  }
}

/**
 * Accepts only ES256 tokens we signed, for agent operations, whose infra-env exists in their
 * organisation; then judges the call (domain/auth/agent-token.ts): an expired or superseded token
 * serves only the installation under way, and an installed cluster's installation calls are closed.
 */
export async function authenticateAgent(
  deps: { store: Store; clock?: Clock; config: { agentSigningKeyPem?: string } },
  secretKey: string | undefined,
  call: AgentCall = {},
): Promise<Principal> {
  if (!secretKey) throw unauthorized('X-Secret-Key header is required for agent requests');
  let keys: Keys;
  try {
    keys = keysFrom(deps.config.agentSigningKeyPem);
  } catch {
    throw invalid();
  }
  const payload = await verifiedPayload(keys, secretKey);
  const { org_id: orgId, infra_env_id: infraEnvId, exp, epoch } = payload;
  // A download URL's token (a `use` claim) opens its infra-env's files, never the agent's operations.
  if (typeof orgId !== 'string' || typeof infraEnvId !== 'string' || payload.use !== undefined) throw invalid();
  if (typeof exp !== 'number' || typeof epoch !== 'number') {
    throw unauthorized(
      'The agent token was issued before agent tokens expired. Download a new discovery image (or discovery.ign) for the infra-env and boot the host from it',
    );
  }
  const standing = await infraEnvStanding(deps.store, orgId, infraEnvId);
  if (!standing) throw unauthorized('The agent token names an infra-env that no longer exists');
  const now = (deps.clock ?? { now: () => new Date() }).now();
  const tokenStanding: TokenStanding = epoch < standing.epoch ? 'superseded' : exp * 1000 <= now.getTime() ? 'expired' : 'current';
  const principal = agentPrincipal(orgId, infraEnvId, standing);
  const operationId = call.operationId ?? '';
  const context: AgentCallContext & { tokenExpiresAt: Date } = { operationId, standing: tokenStanding, now, tokenExpiresAt: new Date(exp * 1000) };
  const needs = agentCallNeeds(operationId, tokenStanding);
  if (needs.cluster || needs.host) Object.assign(context, await callSubjects(deps.store, principal, standing, call, needs));
  const verdict = judgeAgentCall(context);
  if (!verdict.allowed) throw new DomainError(verdict.status === 401 ? 'unauthorized' : 'forbidden', verdict.reason);
  return principal;
}

/**
 * The host and cluster a call is about, as far as the rules need them: the host the path names in
 * the token's infra-env, and the infra-env's cluster (the host's, for an infra-env bound to none).
 * A call naming another infra-env or another cluster is about nothing here: the operation answers
 * it with a 404, as for any resource the caller cannot see, without telling its state.
 */
async function callSubjects(
  store: Store,
  principal: AgentPrincipal,
  standing: InfraEnvStanding,
  call: AgentCall,
  needs: { cluster: boolean; host: boolean },
): Promise<Pick<AgentCallContext, 'cluster' | 'host'>> {
  const params = call.params ?? {};
  const pathInfraEnv = nonEmptyText(params.infra_env_id);
  const pathCluster = nonEmptyText(params.cluster_id);
  if ((pathInfraEnv !== undefined && pathInfraEnv !== principal.infraEnvId) || (pathCluster !== undefined && pathCluster !== standing.clusterId)) return {};
  const hostId = nonEmptyText(params.host_id) ?? (pathCluster ? nonEmptyText(call.query?.host_id) : undefined);
  const subjects: Pick<AgentCallContext, 'cluster' | 'host'> = {};
  let hostClusterId: string | undefined;
  if (hostId && (needs.host || (needs.cluster && !standing.clusterId))) {
    const host = await store.hosts.get({ orgId: principal.orgId, infraEnvId: principal.infraEnvId, hostId });
    if (host) {
      subjects.host = { hostId, status: host.status };
      hostClusterId = host.clusterId;
    }
  }
  const clusterId = standing.clusterId ?? hostClusterId;
  if (needs.cluster && clusterId) {
    // The rules read the cluster's status and when it completed, whose gates are hours wide: a
    // second-old copy decides as a fresh one would, and an installing fleet's reports skip a read each.
    const cluster = await store.clusters.getRecent({ orgId: principal.orgId, clusterId });
    if (cluster) {
      const completed = cluster.attributes.install_completed_at;
      subjects.cluster = { clusterId, status: cluster.status, ...(typeof completed === 'string' ? { installCompletedAt: completed } : {}) };
    }
  }
  return subjects;
}

const URL_TOKEN_USE = 'infra-env-url';

/**
 * The `api_key` of a pre-signed infra-env URL (upstream's urlAuth): signed as agent tokens are,
 * naming the infra-env and its token epoch, for downloads only (its `use` claim), and expiring.
 */
export async function issueInfraEnvUrlToken(
  signingKeyPem: string | undefined,
  claims: { orgId: string; infraEnvId: string; epoch?: number; expiresAt: Date },
): Promise<string> {
  return new SignJWT({ infra_env_id: claims.infraEnvId, org_id: claims.orgId, epoch: claims.epoch ?? 0, use: URL_TOKEN_USE })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
    .sign(keysFrom(signingKeyPem).signing);
}

/**
 * A pre-signed URL's `api_key`: valid for the infra-env it names, in the path it is used on, as
 * that infra-env's agent would be (its operations only read the infra-env and its files), until it
 * expires or the infra-env's signing key is regenerated.
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
    const expired = error instanceof errors.JWTExpired;
    throw unauthorized(expired ? 'This pre-signed URL has expired; ask for a new one' : 'The pre-signed URL is not valid');
  }
  const { org_id: orgId, infra_env_id: infraEnvId } = payload;
  if (payload.use !== URL_TOKEN_USE || typeof orgId !== 'string' || typeof infraEnvId !== 'string') throw unauthorized('The pre-signed URL is not valid');
  if (infraEnvId !== pathInfraEnvId) throw unauthorized('This pre-signed URL is for another infra-env');
  const standing = await infraEnvStanding(deps.store, orgId, infraEnvId);
  if (!standing) throw unauthorized('This pre-signed URL names an infra-env that no longer exists');
  if ((typeof payload.epoch === 'number' ? payload.epoch : 0) < standing.epoch) {
    throw unauthorized("This pre-signed URL was superseded when the infra-env's signing key was regenerated; ask for a new one");
  }
  return agentPrincipal(orgId, infraEnvId, standing);
}
