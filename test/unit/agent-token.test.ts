/**
 * The agent token rules (domain/auth/agent-token.ts) and their use in authenticateAgent with a stub
 * store: lifetimes, the renewal windows of composed images, epochs, the grace an installation under
 * way keeps, the installed cluster's closed calls, and the infra-env cache's bound across instances.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AGENT_CALLS,
  CONTROLLER_WRAP_UP_SECONDS,
  agentCallNeeds,
  agentTokenTtlProblem,
  imageTokenRenewalSeconds,
  imageTokenWindow,
  judgeAgentCall,
  type AgentCallContext,
} from '../../lambdas/domain/auth/agent-token.js';
import type { DomainError } from '../../lambdas/domain/core/errors.js';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { agentTokenTtlFromEnvironment } from '../../lambdas/platform/config.js';
import { authenticateAgent, forgetInfraEnvTokens, issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { findCluster } from '../../lambdas/usecases/access.js';
import type { Store } from '../../lambdas/ports/store.js';
import { CACHE_SPECS } from '../../lambdas/ports/local-caches.js';

const DAY = 86_400;
const now = new Date('2025-06-01T12:00:00Z');
const judge = (context: Partial<AgentCallContext> & { operationId: string }) => judgeAgentCall({ standing: 'current', now, ...context });

describe('agent token lifetimes', () => {
  it("renews a composed image's token every day (a quarter of a short lifetime), and counts the lifetime from the window's start", () => {
    expect(imageTokenRenewalSeconds(14 * DAY)).toBe(DAY);
    expect(imageTokenRenewalSeconds(3600)).toBe(900);
    expect(imageTokenRenewalSeconds(2)).toBe(1);
    const morning = imageTokenWindow(new Date('2025-06-01T01:00:00Z'), 14 * DAY);
    const evening = imageTokenWindow(new Date('2025-06-01T23:59:59Z'), 14 * DAY);
    const tomorrow = imageTokenWindow(new Date('2025-06-02T00:00:00Z'), 14 * DAY);
    expect(evening.window).toBe(morning.window);
    expect(tomorrow.window).toBe(morning.window + 1);
    expect(morning.expiresAt.toISOString()).toBe('2025-06-15T00:00:00.000Z');
    // Whenever an image is downloaded, its token has at least the lifetime less a day ahead.
    expect(evening.expiresAt.getTime() - new Date('2025-06-01T23:59:59Z').getTime()).toBeGreaterThan(13 * DAY * 1000);
  });

  it('reads AGENT_TOKEN_TTL_SECONDS: 14 days by default, whole seconds of at least a minute', () => {
    expect(agentTokenTtlFromEnvironment({})).toBe(14 * DAY);
    expect(agentTokenTtlFromEnvironment({ AGENT_TOKEN_TTL_SECONDS: '3600' })).toBe(3600);
    for (const bad of ['0', '-5', '1.5', 'week', '59']) expect(agentTokenTtlProblem(bad)).toMatch(/AGENT_TOKEN_TTL_SECONDS must be a whole number of seconds/);
    expect(() => agentTokenTtlFromEnvironment({ AGENT_TOKEN_TTL_SECONDS: 'week' })).toThrow(/AGENT_TOKEN_TTL_SECONDS/);
  });

  it("reads nothing more for a current token's discovery polls and reads, and for a stale one only what can excuse it", () => {
    for (const operationId of ['v2GetNextSteps', 'v2PostStepReply', 'v2RegisterHost', 'GetInfraEnv', 'v2GetCluster'])
      expect(agentCallNeeds(operationId, 'current')).toEqual({ cluster: false, host: false });
    expect(agentCallNeeds('V2DownloadClusterCredentials', 'current')).toEqual({ cluster: true, host: false });
    expect(agentCallNeeds('v2GetNextSteps', 'expired')).toEqual({ cluster: false, host: true });
    expect(agentCallNeeds('v2CompleteInstallation', 'superseded')).toEqual({ cluster: true, host: true });
    expect(agentCallNeeds('v2ListClusters', 'expired')).toEqual({ cluster: false, host: false });
  });

  it('classifies exactly the operations of openapi.yaml that admit agentAuth', () => {
    const document = loadOpenApiDocument() as {
      security?: Record<string, unknown>[];
      paths: Record<string, Record<string, { operationId?: string; security?: Record<string, unknown>[] }>>;
    };
    const agentOperations = Object.values(document.paths).flatMap((item) =>
      Object.values(item)
        .filter((operation) => (operation.security ?? document.security ?? []).some((requirement) => 'agentAuth' in requirement))
        .map((operation) => operation.operationId!),
    );
    expect(Object.keys(AGENT_CALLS).sort()).toEqual(agentOperations.sort());
  });
});

describe('judging an agent call', () => {
  const installed = { clusterId: 'c1', status: 'installed', installCompletedAt: new Date(now.getTime() - 10 * 60_000).toISOString() };

  it('refuses an expired or superseded token with 401 and what to do, unless the call is about an installation under way', () => {
    for (const standing of ['expired', 'superseded'] as const) {
      const refused = judge({ operationId: 'v2RegisterHost', standing, tokenExpiresAt: now } as never);
      expect(refused).toMatchObject({ allowed: false, status: 401 });
      expect((refused as { reason: string }).reason).toMatch(/Download a new discovery image/);
      // Installing hosts and their cluster keep the token they booted with.
      expect(judge({ operationId: 'v2UpdateHostInstallProgress', standing, host: { hostId: 'h', status: 'installing-in-progress' } })).toEqual({
        allowed: true,
      });
      expect(judge({ operationId: 'v2GetNextSteps', standing, host: { hostId: 'h', status: 'installing' } })).toEqual({ allowed: true });
      expect(judge({ operationId: 'v2CompleteInstallation', standing, cluster: { clusterId: 'c1', status: 'finalizing' } })).toEqual({ allowed: true });
      // The controller's wrap-up, for the window after the installation; not the material.
      expect(judge({ operationId: 'V2UploadLogs', standing, cluster: installed })).toEqual({ allowed: true });
      expect(judge({ operationId: 'v2CompleteInstallation', standing, cluster: installed })).toEqual({ allowed: true });
      expect(judge({ operationId: 'V2DownloadClusterCredentials', standing, cluster: installed })).toMatchObject({ status: 401 });
      // Not discovery, nor a host that is not installing, nor a cluster that is not.
      expect(
        judge({ operationId: 'v2GetNextSteps', standing, host: { hostId: 'h', status: 'known' }, cluster: { clusterId: 'c1', status: 'installing' } }),
      ).toMatchObject({ status: 401 });
      expect(judge({ operationId: 'V2DownloadClusterFiles', standing, cluster: { clusterId: 'c1', status: 'ready' } })).toMatchObject({ status: 401 });
    }
    expect((judge({ operationId: 'v2RegisterHost', standing: 'expired', tokenExpiresAt: now } as never) as { reason: string }).reason).toContain(
      'expired at 2025-06-01T12:00:00.000Z',
    );
  });

  it("closes an installed cluster's installation material to agents at once (403), its reports and logs after the controller's wrap-up, and keeps reading it", () => {
    for (const operationId of ['V2DownloadClusterCredentials', 'V2DownloadClusterFiles', 'v2DownloadHostIgnition']) {
      const verdict = judge({ operationId, cluster: installed });
      expect(verdict, operationId).toMatchObject({ allowed: false, status: 403 });
      expect((verdict as { reason: string }).reason).toMatch(
        /^Cluster c1 is installed: agent tokens may no longer fetch its installation files, credentials or ignitions/,
      );
    }
    const wrapUp = [
      'v2CompleteInstallation',
      'v2UpdateClusterFinalizingProgress',
      'v2ReportMonitoredOperatorStatus',
      'V2ListOfClusterOperators',
      'v2UploadClusterIngressCert',
      'v2UpdateHostInstallProgress',
      'V2UploadLogs',
      'v2UpdateClusterLogsProgress',
      'v2UpdateHostLogsProgress',
    ];
    for (const operationId of wrapUp) expect(judge({ operationId, cluster: installed }), operationId).toEqual({ allowed: true });
    const longAgo = { ...installed, installCompletedAt: new Date(now.getTime() - (CONTROLLER_WRAP_UP_SECONDS + 1) * 1000).toISOString() };
    for (const operationId of wrapUp) {
      const verdict = judge({ operationId, cluster: longAgo });
      expect(verdict, operationId).toMatchObject({ allowed: false, status: 403 });
      expect((verdict as { reason: string }).reason).toMatch(
        /installation completed more than 2 hours ago, and agent tokens may no longer report on it or upload its logs/,
      );
    }
    for (const operationId of ['v2GetCluster', 'ListClusterHosts', 'v2GetNextSteps', 'v2RegisterHost', 'GetInfraEnv'])
      expect(judge({ operationId, cluster: longAgo }), operationId).toEqual({ allowed: true });
    // While installing, everything is open to the installation's agents.
    for (const operationId of Object.keys(AGENT_CALLS))
      expect(judge({ operationId, cluster: { clusterId: 'c1', status: 'finalizing' } })).toEqual({ allowed: true });
  });

  it('keeps day-2 hosts installing in an adding-hosts cluster, without the day-1 files and credentials', () => {
    const adding = { clusterId: 'c1', status: 'adding-hosts' };
    for (const operationId of ['v2UpdateHostInstallProgress', 'v2DownloadHostIgnition', 'V2UploadLogs', 'v2UpdateHostLogsProgress'])
      expect(judge({ operationId, cluster: adding }), operationId).toEqual({ allowed: true });
    for (const operationId of ['V2DownloadClusterCredentials', 'V2DownloadClusterFiles'])
      expect(judge({ operationId, cluster: adding }), operationId).toMatchObject({ status: 403 });
  });
});

describe('authenticateAgent', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  afterEach(() => vi.useRealTimers());

  /** A store holding one infra-env, and counting its reads. */
  function stubStore(infraEnv: { orgId: string; infraEnvId: string; agentTokenEpoch?: number } | undefined) {
    const state = { infraEnv, reads: 0 };
    const store = {
      infraEnvs: {
        get: async () => {
          state.reads += 1;
          return state.infraEnv;
        },
      },
      clusters: { get: async () => undefined },
      hosts: { get: async () => undefined },
    } as unknown as Store;
    return { store, state };
  }
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as DomainError;
    }
    throw new Error('accepted');
  };

  it('refuses tokens issued before tokens expired (no exp, no epoch) and expired ones, naming the time', async () => {
    const infraEnvId = randomUUID();
    const { store } = stubStore({ orgId: 'o', infraEnvId });
    const deps = { store, clock: { now: () => now }, config: { agentSigningKeyPem: pem } };
    const { SignJWT } = await import('jose');
    const { createPrivateKey } = await import('node:crypto');
    const legacy = await new SignJWT({ infra_env_id: infraEnvId, org_id: 'o' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('assisted-cloud')
      .setIssuedAt()
      .sign(createPrivateKey(pem));
    expect((await refusal(authenticateAgent(deps, legacy, { operationId: 'v2RegisterHost' }))).message).toMatch(
      /issued before agent tokens expired\. Download a new discovery image/,
    );
    const expired = await issueAgentToken(pem, { orgId: 'o', infraEnvId, expiresAt: new Date(now.getTime() - 1000) });
    const refused = await refusal(authenticateAgent(deps, expired, { operationId: 'v2RegisterHost' }));
    expect(refused.kind).toBe('unauthorized');
    expect(refused.message).toContain(`expired at ${new Date(now.getTime() - 1000).toISOString()}`);
    const valid = await issueAgentToken(pem, { orgId: 'o', infraEnvId, expiresAt: new Date(now.getTime() + 1000) });
    expect(decodeJwt(valid)).toMatchObject({ epoch: 0, exp: Math.floor(now.getTime() / 1000) + 1 });
    await expect(authenticateAgent(deps, valid, { operationId: 'v2RegisterHost' })).resolves.toEqual({
      kind: 'agent',
      orgId: 'o',
      infraEnvId,
      infraEnvCluster: {},
    });
  });

  it("carries the infra-env's cluster as authentication read it: the agent's cluster reads need no second infra-env read, and another cluster is a 404", async () => {
    const infraEnvId = randomUUID();
    const clusterId = randomUUID();
    const { store, state } = stubStore({ orgId: 'o', infraEnvId, clusterId } as never);
    const clusterOf = (id: string) => ({ orgId: 'o', clusterId: id, status: 'installing', attributes: {} });
    (store.clusters as { get: unknown }).get = async (key: { clusterId: string }) => clusterOf(key.clusterId);
    const deps = { store, clock: { now: () => now }, config: { agentSigningKeyPem: pem } };
    const token = await issueAgentToken(pem, { orgId: 'o', infraEnvId, expiresAt: new Date(now.getTime() + 60_000) });
    const principal = await authenticateAgent(deps, token, { operationId: 'v2GetCluster', params: { cluster_id: clusterId } });
    expect(principal).toEqual({ kind: 'agent', orgId: 'o', infraEnvId, infraEnvCluster: { clusterId } });
    const readsAfterAuthentication = state.reads;
    await expect(findCluster(store, principal, clusterId)).resolves.toMatchObject({ clusterId });
    expect((await refusal(findCluster(store, principal, randomUUID()))).kind).toBe('not-found');
    expect(state.reads).toBe(readsAfterAuthentication);
    // A principal that carries no reading (an image token's) still has its infra-env read.
    await expect(findCluster(store, { kind: 'agent', orgId: 'o', infraEnvId }, clusterId)).resolves.toMatchObject({ clusterId });
    expect(state.reads).toBe(readsAfterAuthentication + 1);
  });

  it("sees a regenerated epoch at once where it was forgotten, and within the cache's bound everywhere else", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const infraEnvId = randomUUID();
    const { store, state } = stubStore({ orgId: 'o', infraEnvId, agentTokenEpoch: 0 });
    const deps = { store, config: { agentSigningKeyPem: pem } };
    const token = await issueAgentToken(pem, { orgId: 'o', infraEnvId, epoch: 0 });
    await authenticateAgent(deps, token, { operationId: 'v2RegisterHost' });
    // Another instance regenerates the key: this one serves what it read, for the bound at most.
    state.infraEnv = { orgId: 'o', infraEnvId, agentTokenEpoch: 1 };
    await authenticateAgent(deps, token, { operationId: 'v2RegisterHost' });
    vi.setSystemTime(start + CACHE_SPECS['infra-env-existence'].maxAgeMs! + 1);
    expect((await refusal(authenticateAgent(deps, token, { operationId: 'v2RegisterHost' }))).message).toMatch(
      /superseded when the infra-env's signing key was regenerated/,
    );
    // The instance that makes a change forgets at once.
    const reads = state.reads;
    const next = await issueAgentToken(pem, { orgId: 'o', infraEnvId, epoch: 1 });
    await authenticateAgent(deps, next, { operationId: 'v2RegisterHost' });
    state.infraEnv = undefined;
    forgetInfraEnvTokens('o', infraEnvId);
    expect((await refusal(authenticateAgent(deps, next, { operationId: 'v2RegisterHost' }))).message).toMatch(/names an infra-env that no longer exists/);
    expect(state.reads).toBe(reads + 1);
  });
});
