/**
 * The privilege matrix: EVERY operation of openapi.yaml (the document is iterated, so a new
 * operation cannot be forgotten) called by every kind of caller, each answer checked against the
 * class of answer the access model gives (docs/api.md): read-only, user and admin API tokens of the
 * organisation, people signed in through the identity provider who joined it with those roles
 * (members, through a loopback issuer, invited and accepted through the API), the agent token of the infra-env under test (agent-of-X), the agent token of another
 * infra-env of the organisation (agent-of-Y), an expired agent token of the infra-env under test,
 * and an admin token of another organisation.
 *
 * Expected classes are derived from the rules below, not from the implementation: 'ok' (2xx, or a
 * 4xx that is neither 401, 403 nor 404: validation or state), 401, 403, 404 or 501 (an operation the
 * service does not implement, once its caller authenticated). Two phases: the cluster under test
 * finalizing with its installation files written (every operation), and the same installed three
 * hours ago (the operations agents may call). Every answer is also searched for what the caller
 * must not see: the pull secret, the installation's secrets (each seeded file holds a marker), agent
 * and image tokens, signed URLs, and the other organisation's or infra-env's ids it did not send.
 * Callers refused a change must leave the records as they were.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngressCa } from '../../agent/src/controller/ingress-ca.js';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { operations as implementedOperations, publicOperations } from '../../lambdas/handlers/api/operations/index.js';
import type { Role } from '../../lambdas/domain/core/entities.js';
import { manifestObjectKey } from '../../lambdas/domain/core/object-keys.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { startIdentityIssuer, type IdentityIssuer } from '../support/identity-issuer.js';
import { testRuntime } from '../support/runtime.js';
import {
  captureTemplates,
  INSTALLATION_FILES,
  PROXY_PASSWORD,
  secretMarker,
  seedCluster,
  seedInstallationFiles,
  type Templates,
} from '../support/seeded-worlds.js';
import { agentUnitOf } from '../support/upstream-agent.js';
import { userIdOf } from '../../lambdas/domain/auth/identity.js';

/**
 * removed-member-agent and demoted-member-agent: the agent tokens a person was handed (discovery.ign)
 * before their membership ended or became read-only, which superseded them (docs/api.md).
 */
type Who =
  | 'read-only'
  | 'user'
  | 'admin'
  | 'member-read-only'
  | 'member-user'
  | 'member-admin'
  | 'agent-of-X'
  | 'agent-of-Y'
  | 'expired-agent'
  | 'removed-member-agent'
  | 'demoted-member-agent'
  | 'other-org';
const CALLERS: readonly Who[] = [
  'read-only',
  'user',
  'admin',
  'member-read-only',
  'member-user',
  'member-admin',
  'agent-of-X',
  'agent-of-Y',
  'expired-agent',
  'removed-member-agent',
  'demoted-member-agent',
  'other-org',
];
/** A superseded or expired agent token serves only the installation under way. */
const ENDED_AGENT_TOKENS: ReadonlySet<Who> = new Set(['expired-agent', 'removed-member-agent', 'demoted-member-agent']);
/** People signed in through the identity provider (a loopback issuer), members of the organisation with these roles. */
const MEMBERS = { 'member-read-only': 'read-only', 'member-user': 'user', 'member-admin': 'admin' } as const;
const isMember = (who: Who): who is keyof typeof MEMBERS => Object.hasOwn(MEMBERS, who);
/** The role a caller acts with in the organisation under test: an API token's or a member's. */
const roleOf = (who: Who): Role | undefined => (isMember(who) ? MEMBERS[who] : who === 'read-only' || who === 'user' || who === 'admin' ? who : undefined);
type Expected = 'ok' | 401 | 403 | 404 | 501;
type Phase = 'finalizing' | 'installed';

interface Operation {
  id: string;
  method: string;
  path: string;
  schemes: Set<string>;
  public: boolean;
}

const document = loadOpenApiDocument() as {
  security?: Record<string, unknown>[];
  paths: Record<string, Record<string, { operationId: string; security?: Record<string, unknown>[] }>>;
};
const OPERATIONS: Operation[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => {
      const security = operation.security ?? document.security ?? [];
      return {
        id: operation.operationId,
        method: method.toUpperCase(),
        path,
        schemes: new Set(security.flatMap((requirement) => Object.keys(requirement))),
        public: security.length === 0,
      };
    }),
);
const IMPLEMENTED = new Set([...Object.keys(implementedOperations), ...Object.keys(publicOperations)]);

// ---- the model's rules -----------------------------------------------------------------------

/** API token management is the admin role's; a member manages tokens of their own (none is the victim). */
const TOKEN_MANAGEMENT = new Set(['ListApiTokens', 'CreateApiToken', 'RevokeApiToken']);
/** The organisation's own record: read by every role, changed by admins. Joining is for people only. */
const ORGANISATION_READS = new Set(['ListOrganizations', 'GetOrganization', 'ListOrganizationMembers']);
const ORGANISATION_ADMIN = new Set([
  'ListAuditEvents',
  'ListWebhooks',
  'CreateWebhook',
  'DeleteWebhook',
  'ListWebhookDeliveries',
  'UpdateOrganization',
  'UpdateOrganizationMember',
  'RemoveOrganizationMember',
  'ListOrganizationInvitations',
  'CreateOrganizationInvitation',
  'RevokeOrganizationInvitation',
]);
/** The discovery agent's own calls, within its infra-env: an installed cluster leaves them open. */
const DISCOVERY = new Set(['GetInfraEnv', 'v2RegisterHost', 'v2ListHosts', 'v2GetNextSteps', 'v2PostStepReply', 'v2DownloadInfraEnvFiles']);
/**
 * Reading the cluster: open to its agents whatever its state. Every other agent call (the
 * installer's material, installation reports, the controller's calls, logs) is closed once the
 * cluster is installed and the controller's wrap-up (2 h) is over.
 */
const CLUSTER_READS = new Set(['v2GetCluster', 'ListClusterHosts']);

interface Spec {
  label?: string;
  query?: Record<string, string>;
  /** JSON body (a string is sent as written). */
  body?: unknown;
  /** A multipart body instead of JSON. */
  form?: () => FormData;
  /** A 404 with this reason is the answer for everyone who may call (nothing of the kind exists). */
  absent?: RegExp;
}
const fileName = (spec: Spec) => spec.query?.file_name ?? '';

/** Read-only tokens get nothing that carries credentials (docs/api.md, Authentication). */
function carriesCredentials(id: string, spec: Spec): boolean {
  switch (id) {
    case 'GetInfraEnvDownloadURL':
    case 'GetInfraEnvPresignedFileURL':
    case 'V2GetCredentials':
    case 'V2GetPresignedForClusterCredentials':
    case 'V2DownloadClusterCredentials':
    case 'v2DownloadHostIgnition':
    case 'v2GetHostIgnition':
      return true;
    case 'v2DownloadInfraEnvFiles':
      return fileName(spec) !== 'static-network-config';
    case 'V2DownloadClusterFiles':
      return fileName(spec).endsWith('.ign');
    case 'V2GetPresignedForClusterFiles':
      return fileName(spec).endsWith('.ign') || fileName(spec) === 'install-config.yaml';
    default:
      return false;
  }
}

/** Agents get one credential, the kubeconfig the installer reaches the new API server with. */
const agentCredentialRefused = (id: string, spec: Spec) => id === 'V2DownloadClusterCredentials' && fileName(spec) !== 'kubeconfig-noingress';

const AGENTS: ReadonlySet<Who> = new Set(['agent-of-X', 'agent-of-Y', ...ENDED_AGENT_TOKENS]);

function expectedAnswer(operation: Operation, spec: Spec, who: Who, phase: Phase, namesWorld: boolean): Expected {
  if (operation.public) return 'ok';
  const agent = AGENTS.has(who);
  if (!operation.schemes.has(agent ? 'agentAuth' : 'userAuth')) return 401;
  // An expired token serves only the installation under way: calls about its cluster (and that
  // cluster's hosts) while the cluster finalizes, not the discovery agent's.
  if (ENDED_AGENT_TOKENS.has(who) && !(phase === 'finalizing' && !DISCOVERY.has(operation.id))) return 401;
  // Once installed, the cluster's installation is closed to its agents, whatever the call.
  if (who !== 'agent-of-Y' && agent && phase === 'installed' && !DISCOVERY.has(operation.id) && !CLUSTER_READS.has(operation.id)) return 403;
  if (!IMPLEMENTED.has(operation.id)) return 501;
  if (agent) {
    if (agentCredentialRefused(operation.id, spec)) return 403;
    // Every agent call names the infra-env under test, its host or its cluster: not Y's.
    if (who === 'agent-of-Y') return 404;
    return 'ok';
  }
  if (operation.id === 'AcceptOrganizationInvitation') return isMember(who) ? 'ok' : 403;
  if (who === 'other-org') return namesWorld ? 404 : 'ok';
  const role = roleOf(who);
  if (ORGANISATION_READS.has(operation.id)) return 'ok';
  if (ORGANISATION_ADMIN.has(operation.id)) return role === 'admin' ? 'ok' : 403;
  if (TOKEN_MANAGEMENT.has(operation.id)) {
    if (role === 'admin') return 'ok';
    if (!isMember(who)) return 403;
    return operation.id === 'RevokeApiToken' ? 404 : 'ok';
  }
  if (role === 'read-only' && (operation.method !== 'GET' || carriesCredentials(operation.id, spec))) return 403;
  return 'ok';
}

// ---- the world under test --------------------------------------------------------------------

interface World {
  clusterId: string;
  infraEnvId: string;
  hostId: string;
  otherClusterId: string;
  otherInfraEnvId: string;
  otherHostId: string;
  victimTokenId: string;
  tokens: Record<Who, Record<string, string>>;
}

const MANIFEST = { folder: 'openshift', file_name: '50-matrix.yaml' };
const b64 = (text: string) => Buffer.from(text).toString('base64');
let version = '';
let bundleId = '';
let ingressCa = '';

/** The request each operation is called with (several for files whose rules differ). Path parameters come from the world. */
function requestsFor(operation: Operation, world: World): Spec[] {
  const logsForm = () => {
    const form = new FormData();
    form.set('upfile', new Blob([Buffer.from('logs')]), 'logs.tar.gz');
    return form;
  };
  const specs: Record<string, Spec[]> = {
    v2RegisterCluster: [{ body: { name: 'matrix', openshift_version: version, pull_secret: PULL_SECRET } }],
    V2UpdateCluster: [{ body: { name: 'renamed' } }],
    v2UpdateClusterFinalizingProgress: [{ body: { finalizing_stage: 'Waiting for cluster operators' } }],
    ListClusterHosts: [{}],
    RegisterInfraEnv: [{ body: { name: 'matrix', pull_secret: PULL_SECRET, cluster_id: world.clusterId } }],
    UpdateInfraEnv: [{ body: { additional_ntp_sources: 'ntp.example.com' } }],
    v2RegisterHost: [{ body: { host_id: randomUUID() } }],
    v2UpdateHost: [{ body: { host_name: 'renamed' } }],
    v2PostStepReply: [{ body: { step_type: 'free-network-addresses', step_id: 'free-network-addresses-1', exit_code: 0, output: '[]' } }],
    v2UpdateHostInstallProgress: [{ body: { current_stage: 'Done' } }],
    BindHost: [{ body: { cluster_id: world.clusterId } }],
    v2UpdateHostInstallerArgs: [{ body: { args: ['-n'] } }],
    v2UpdateHostIgnition: [{ body: { config: '{"ignition":{"version":"3.2.0"}}' } }],
    v2DownloadInfraEnvFiles: ['discovery.ign', 'ipxe-script', 'static-network-config'].map((name) => ({ label: name, query: { file_name: name } })),
    GetInfraEnvPresignedFileURL: [{ query: { file_name: 'discovery.ign' } }],
    v2UpdateHostLogsProgress: [{ body: { logs_state: 'requested' } }],
    V2GetPresignedForClusterCredentials: [{ query: { file_name: 'kubeconfig' } }],
    V2DownloadClusterFiles: ['bootstrap.ign', 'install-config.yaml', 'metadata.json'].map((name) => ({ label: name, query: { file_name: name } })),
    V2DownloadClusterCredentials: ['kubeconfig-noingress', 'kubeconfig', 'kubeadmin-password'].map((name) => ({ label: name, query: { file_name: name } })),
    V2GetPresignedForClusterFiles: ['master.ign', 'install-config.yaml', 'metadata.json'].map((name) => ({ label: name, query: { file_name: name } })),
    v2UpdateClusterInstallConfig: [{ body: JSON.stringify(JSON.stringify({ fips: true })) }],
    V2ListOperatorProperties: [{}],
    v2UploadClusterIngressCert: [{ body: JSON.stringify(ingressCa) }],
    v2CompleteInstallation: [{ body: { is_success: true } }],
    v2UpdateClusterLogsProgress: [{ body: { logs_state: 'requested' } }],
    V2CreateClusterManifest: [{ body: { folder: 'manifests', file_name: 'created.yaml', content: b64('a: 1\n') } }],
    V2UpdateClusterManifest: [{ body: { ...MANIFEST, updated_content: b64('a: 2\n') } }],
    V2DeleteClusterManifest: [{ query: MANIFEST }],
    v2DownloadClusterManifest: [{ query: MANIFEST }],
    V2DownloadClusterLogs: [{ query: { logs_type: 'controller' } }],
    V2UploadLogs: [{ query: { logs_type: 'controller' }, form: logsForm }],
    v2ReportMonitoredOperatorStatus: [{ body: { name: 'console', status: 'available', status_info: 'ok', version } }],
    v2ListEvents: [{ query: { cluster_id: world.clusterId } }],
    v2TriggerEvent: [{ body: { severity: 'info', message: 'matrix', event_time: new Date().toISOString(), cluster_id: world.clusterId } }],
    GetSupportedFeatures: [{ query: { openshift_version: version } }],
    GetDetailedSupportedFeatures: [{ query: { openshift_version: version } }],
    GetSupportedArchitectures: [{ query: { openshift_version: version } }],
    v2ImportCluster: [{ body: { name: 'imported', api_vip_dnsname: 'api.imported.example.com', openshift_cluster_id: randomUUID() } }],
    v2RegisterDisconnectedCluster: [{ body: { name: 'disconnected', openshift_version: version } }],
    v2SetIgnoredValidations: [{ body: { 'host-validation-ids': '["has-cpu-cores-for-role"]' } }],
    V2UpdateClusterUISettings: [{ body: JSON.stringify({ matrix: true }) }],
    CreateApiToken: [{ body: { name: 'matrix', role: 'read-only' } }],
    UpdateOrganization: [{ body: { name: 'Default organisation' } }],
    UpdateOrganizationMember: [{ body: { role: 'user' }, absent: /^Member \S+ not found/ }],
    RemoveOrganizationMember: [{ absent: /^Member \S+ not found/ }],
    RevokeOrganizationInvitation: [{ absent: /^Invitation \S+ not found/ }],
    CreateOrganizationInvitation: [{ body: { email: 'matrix@example.com', role: 'read-only' } }],
    CreateWebhook: [{ body: { url: 'http://127.0.0.1:9/matrix', events: ['cluster-status'] } }],
    DeleteWebhook: [{ absent: /^Webhook \S+ not found/ }],
    ListWebhookDeliveries: [{ absent: /^Webhook \S+ not found/ }],
    AcceptOrganizationInvitation: [
      { body: { code: 'inv1.default.00000000000000000000000000000000.not-a-secret' }, absent: /^This invitation code is not valid/ },
    ],
  };
  return specs[operation.id] ?? [{}];
}

/** The operations whose request needs more than path parameters: each must have an entry above. */
function needsSpec(operation: Operation): boolean {
  const item = document.paths[operation.path]![operation.method.toLowerCase()] as {
    requestBody?: unknown;
    parameters?: { in: string; required?: boolean; $ref?: string }[];
  };
  return item.requestBody !== undefined || (item.parameters ?? []).some((parameter) => parameter.in === 'query' && parameter.required);
}

function urlOf(operation: Operation, spec: Spec, world: World): string {
  const values: Record<string, string> = {
    cluster_id: world.clusterId,
    infra_env_id: world.infraEnvId,
    host_id: world.hostId,
    token_id: world.victimTokenId,
    validation_id: 'ntp-synced',
    organization_id: 'default',
    // Nobody: who may call finds no such member or invitation (a 404 naming it), who may not is refused first.
    user_id: '0'.repeat(32),
    invitation_id: '0'.repeat(32),
    webhook_id: '00000000-0000-0000-0000-000000000000',
    operator_name: 'lso',
    id: bundleId,
  };
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for path parameter ${name} of ${operation.id}: add one to the matrix`);
    return values[name]!;
  });
  const query = spec.query ? `?${new URLSearchParams(spec.query)}` : '';
  return `/api/assisted-install${path}${query}`;
}

// ---- the test --------------------------------------------------------------------------------

describe('privilege matrix: every operation × every kind of caller', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let templates: Templates;
  const userTokens: Partial<Record<Who, string>> = {};
  const handedEpochs = { removed: 0, demoted: 0 };
  const stats = { requests: 0, worlds: 0, operations: new Set<string>(), pairs: new Set<string>(), leaks: [] as string[], mismatches: [] as string[] };

  const send = async (operation: Operation, spec: Spec, world: World, who: Who) => {
    const headers: Record<string, string> = { ...world.tokens[who] };
    let body: FormData | string | undefined;
    if (spec.form) body = spec.form();
    else if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
    }
    const response = await fetch(`${env.runtime.url}${urlOf(operation, spec, world)}`, { method: operation.method, headers, body, redirect: 'manual' });
    return { status: response.status, text: await response.text() };
  };

  /**
   * A world: the cluster under test in the phase's state with its infra-env X, a host, its
   * installation files and a manifest; another cluster with its infra-env Y and host; a token to
   * revoke. A world for one allowed caller of one operation has only what that operation touches.
   */
  async function newWorld(phase: Phase, operation?: Operation): Promise<World> {
    stats.worlds += 1;
    const needs = (ids: string[]) => !operation || ids.includes(operation.id);
    const options =
      phase === 'finalizing'
        ? { clusterStatus: 'finalizing' as const, hostStatus: 'installed' as const, hostStage: 'Done' }
        : {
            clusterStatus: 'installed' as const,
            hostStatus: 'installed' as const,
            hostStage: 'Done',
            installCompletedAt: new Date(Date.now() - 3 * 3_600_000),
          };
    const [own, other, victim] = await Promise.all([
      seedCluster(templates, { ...options, name: 'under-test' }),
      operation ? undefined : seedCluster(templates, { clusterStatus: 'insufficient', hostStatus: 'known', name: 'other' }),
      needs(['RevokeApiToken']) ? createApiToken(container(), { orgId: 'default', name: 'victim', role: 'read-only' }) : undefined,
    ]);
    const objectKey = manifestObjectKey('default', own.clusterId, MANIFEST.folder, MANIFEST.file_name);
    await Promise.all([
      needs(['v2UploadClusterIngressCert']) ? seedInstallationFiles(own.clusterId) : undefined,
      needs(['V2UpdateClusterManifest', 'V2DeleteClusterManifest'])
        ? container()
            .blobs.put('files', objectKey, 'a: 1\n')
            .then(() =>
              container().store.manifests.create({
                orgId: 'default',
                clusterId: own.clusterId,
                folder: MANIFEST.folder,
                fileName: MANIFEST.file_name,
                source: 'user',
                objectKey,
                createdAt: new Date().toISOString(),
              }),
            )
        : undefined,
    ]);
    const key = container().config.agentSigningKeyPem;
    // The seeded infra-envs' current token epoch (the template's, moved on by the setup's removal and demotion).
    const epoch = templates.infraEnv.agentTokenEpoch ?? 0;
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    return {
      clusterId: own.clusterId,
      infraEnvId: own.infraEnvId,
      hostId: own.hostId,
      otherClusterId: other?.clusterId ?? '-',
      otherInfraEnvId: other?.infraEnvId ?? '-',
      otherHostId: other?.hostId ?? '-',
      victimTokenId: victim?.record.tokenId ?? '0'.repeat(32),
      tokens: {
        'read-only': bearer(userTokens['read-only']!),
        user: bearer(userTokens.user!),
        admin: bearer(userTokens.admin!),
        'other-org': bearer(userTokens['other-org']!),
        'member-read-only': bearer(userTokens['member-read-only']!),
        'member-user': bearer(userTokens['member-user']!),
        'member-admin': bearer(userTokens['member-admin']!),
        'agent-of-X': { 'X-Secret-Key': await issueAgentToken(key, { orgId: 'default', infraEnvId: own.infraEnvId, epoch }) },
        'agent-of-Y': other ? { 'X-Secret-Key': await issueAgentToken(key, { orgId: 'default', infraEnvId: other.infraEnvId, epoch }) } : {},
        'expired-agent': {
          'X-Secret-Key': await issueAgentToken(key, { orgId: 'default', infraEnvId: own.infraEnvId, epoch, expiresAt: new Date(Date.now() - 60_000) }),
        },
        // The epochs the template's infra-env had when the two were handed its discovery.ign (its
        // seeded copies keep the epoch their removal and demotion moved it to).
        'removed-member-agent': { 'X-Secret-Key': await issueAgentToken(key, { orgId: 'default', infraEnvId: own.infraEnvId, epoch: handedEpochs.removed }) },
        'demoted-member-agent': { 'X-Secret-Key': await issueAgentToken(key, { orgId: 'default', infraEnvId: own.infraEnvId, epoch: handedEpochs.demoted }) },
      },
    };
  }

  /** What a refused caller must not have changed. */
  async function recordsOf(world: World): Promise<string> {
    const store = container().store;
    const [cluster, infraEnv, host, token, manifest] = await Promise.all([
      store.clusters.get({ orgId: 'default', clusterId: world.clusterId }),
      store.infraEnvs.get({ orgId: 'default', infraEnvId: world.infraEnvId }),
      store.hosts.get({ orgId: 'default', infraEnvId: world.infraEnvId, hostId: world.hostId }),
      store.apiTokens.get({ orgId: 'default', tokenId: world.victimTokenId }),
      store.manifests.get({ orgId: 'default', clusterId: world.clusterId, ...{ folder: MANIFEST.folder, fileName: MANIFEST.file_name } }),
    ]);
    return JSON.stringify({ cluster: cluster?.version, infraEnv: infraEnv?.version, host: host?.version, token: token?.version, manifest: manifest?.version });
  }

  /**
   * What the caller must not find in an answer: a caller the model refuses gets no secret; read-only
   * tokens nothing that carries credentials; agents no admin credentials; nobody an id it may not
   * see and did not send itself.
   */
  function leaksIn(text: string, who: Who, expected: Expected, sent: string, world: World): string[] {
    if (roleOf(who) === 'user' || roleOf(who) === 'admin') return [];
    const refused = expected !== 'ok';
    const secrets: Record<string, string> = {
      kubeconfig: secretMarker(world.clusterId, 'kubeconfig'),
      'kubeadmin password': secretMarker(world.clusterId, 'kubeadmin-password'),
    };
    if (refused || roleOf(who) === 'read-only' || who === 'other-org' || who === 'agent-of-Y') {
      Object.assign(secrets, {
        'the pull secret': Buffer.from('tester:not-a-real-password').toString('base64'),
        'the pull secret (decoded)': 'not-a-real-password',
        'the pull secret (as a data URL)': Buffer.from(PULL_SECRET).toString('base64'),
        'an agent token': 'PULL_SECRET_TOKEN=',
        'an image token': 'image_token=',
        'a pre-signed URL credential': 'api_key=',
        "a proxy's password": PROXY_PASSWORD,
      });
      for (const file of INSTALLATION_FILES) secrets[file] = secretMarker(world.clusterId, file);
    }
    // Read-only tokens may have a signed URL to a file they may read (metadata.json).
    if (refused || who === 'other-org' || who === 'agent-of-Y') secrets['a signed S3 URL'] = 'X-Amz-Signature';
    const found = Object.entries(secrets)
      .filter(([, secret]) => text.includes(secret))
      .map(([name]) => name);
    // Ids of what the caller may not see: the other organisation sees none of this one's, an agent
    // only its own infra-env's (X's agents: X, its host and its cluster; Y's: Y's).
    const own = [world.clusterId, world.infraEnvId, world.hostId];
    const others = [world.otherClusterId, world.otherInfraEnvId, world.otherHostId];
    const hidden = who === 'other-org' ? [...own, ...others] : who === 'agent-of-Y' ? own : roleOf(who) === 'read-only' ? [] : others;
    for (const id of hidden) if (id.length > 1 && text.includes(id) && !sent.includes(id)) found.push(`id ${id}`);
    return found;
  }

  let idp: IdentityIssuer;

  beforeAll(async () => {
    idp = await startIdentityIssuer();
    Object.assign(process.env, idp.environment);
    // Two Api instances (each compiles every operation's validator once; the matrix calls them all).
    env = await testRuntime({ syntheticBaseImages: false, apiInstances: 2, scheduleOverrides: { 'host-monitor': 24 * 3_600_000 } });
    const admin = { Authorization: `Bearer ${env.adminToken}` };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${path}`, {
        method,
        headers: { ...admin, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => undefined) };
    };
    templates = await captureTemplates(call);
    version = templates.cluster.attributes.openshift_version as string;
    bundleId = ((await call('GET', '/operators/bundles')).body as { id: string }[])[0]?.id ?? 'virtualization';
    ingressCa = (await createIngressCa()).certificatePem;
    const ports = container();
    userTokens.admin = env.adminToken;
    userTokens.user = (await createApiToken(ports, { orgId: 'default', name: 'matrix-user', role: 'user' })).token;
    userTokens['read-only'] = (await createApiToken(ports, { orgId: 'default', name: 'matrix-read-only', role: 'read-only' })).token;
    await ensureOrganisation(ports, 'org-matrix-b', 'Organisation B');
    userTokens['other-org'] = (await createApiToken(ports, { orgId: 'org-matrix-b', name: 'b-admin', role: 'admin' })).token;
    // People join the organisation as its members do: invited by its admin, accepting while signed in.
    for (const [who, role] of Object.entries(MEMBERS) as [Who, Role][]) {
      const email = `${who}@example.com`;
      const token = (userTokens[who] = await idp.idToken(who, email));
      const invitation = await call('POST', '/organizations/default/invitations', { email, role });
      const joined = await fetch(`${env.runtime.url}/api/assisted-install/v2/organizations/join`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ code: (invitation.body as { code: string }).code }),
      });
      expect(joined.status, await joined.text()).toBe(200);
    }
    // Two more people, each handed the template infra-env's discovery.ign while a member; then one
    // is removed and the other made read-only, which supersedes what they were handed.
    const agentEpochOf = async (token: string) =>
      JSON.parse(
        Buffer.from(
          agentUnitOf(
            await (
              await fetch(`${env.runtime.url}/api/assisted-install/v2/infra-envs/${templates.infraEnv.infraEnvId}/downloads/files?file_name=discovery.ign`, {
                headers: { Authorization: `Bearer ${token}` },
              })
            ).text(),
          ).token.split('.')[1]!,
          'base64url',
        ).toString(),
      ).epoch as number;
    const people: Record<'removed' | 'demoted', string> = { removed: '', demoted: '' };
    for (const who of ['removed', 'demoted'] as const) {
      const email = `${who}-member@example.com`;
      people[who] = await idp.idToken(`${who}-member`, email);
      const invitation = await call('POST', '/organizations/default/invitations', { email, role: 'user' });
      const joined = await fetch(`${env.runtime.url}/api/assisted-install/v2/organizations/join`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${people[who]}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ code: (invitation.body as { code: string }).code }),
      });
      expect(joined.status, await joined.text()).toBe(200);
    }
    handedEpochs.removed = await agentEpochOf(people.removed);
    expect((await call('DELETE', `/organizations/default/members/${userIdOf(idp.issuer, 'removed-member')}`)).status).toBe(204);
    handedEpochs.demoted = await agentEpochOf(people.demoted);
    expect((await call('PATCH', `/organizations/default/members/${userIdOf(idp.issuer, 'demoted-member')}`, { role: 'read-only' })).status).toBe(200);
    templates.infraEnv = (await container().store.infraEnvs.get({ orgId: 'default', infraEnvId: templates.infraEnv.infraEnvId }))!;
    expect([handedEpochs.removed, handedEpochs.demoted, templates.infraEnv.agentTokenEpoch]).toEqual([0, 1, 2]);
    // No follow-ups (cluster judgements) from here on: the worlds stay in the states seeded, and
    // what a refused caller must not change changes only by the calls themselves.
    env.runtime.settings.settleFollowUps = false;
    await env.runtime.streams.pause();
  }, 180_000);
  afterAll(async () => {
    console.log(
      `privilege matrix: ${stats.operations.size} operations × ${CALLERS.length} callers = ${stats.pairs.size} (operation, caller) pairs, ` +
        `${stats.requests} requests on ${stats.worlds} seeded worlds; ${stats.mismatches.length} unexpected answers; ${stats.leaks.length} leaks`,
    );
    await env?.close();
    await idp?.close();
    for (const name of Object.keys(idp?.environment ?? {})) delete process.env[name];
  });

  it('has a request for every operation that takes more than path parameters', () => {
    const missing = OPERATIONS.filter(
      (operation) =>
        needsSpec(operation) && requestsFor(operation, {} as World).length === 1 && Object.keys(requestsFor(operation, {} as World)[0]!).length === 0,
    );
    expect(missing.map((operation) => operation.id)).toEqual([]);
  });

  /**
   * Calls one operation as every caller: the refused first, on a world they must leave as it was,
   * then each allowed caller on a world of its own when the call may change it.
   */
  async function matrixOf(operation: Operation, phase: Phase, sharedWorld: World): Promise<void> {
    // Calls that may change the world get worlds of their own; those that change nothing of it
    // (reads, and creations that name none of its records) share one.
    const changes =
      operation.method !== 'GET' && (/\{(cluster_id|infra_env_id|host_id|token_id)\}/.test(operation.path) || operation.id === 'RegisterInfraEnv');
    const refusedWorld = changes ? await newWorld(phase) : sharedWorld;
    for (const spec of requestsFor(operation, refusedWorld)) {
      const label = `${phase} ${operation.id}${spec.label ? ` (${spec.label})` : ''}`;
      const plan = CALLERS.map((who) => {
        const sentText = `${urlOf(operation, spec, refusedWorld)} ${typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body ?? '')}`;
        const namesWorld =
          operation.path.includes('{organization_id}') ||
          [refusedWorld.clusterId, refusedWorld.infraEnvId, refusedWorld.hostId, refusedWorld.victimTokenId].some((id) => sentText.includes(id));
        return { who, expected: expectedAnswer(operation, spec, who, phase, namesWorld) };
      });
      const refused = plan.filter((entry) => entry.expected !== 'ok');
      const allowed = plan.filter((entry) => entry.expected === 'ok');
      const before = await recordsOf(refusedWorld);
      const answers: { who: Who; expected: Expected; world: World; spec: Spec }[] = refused.map((entry) => ({ ...entry, world: refusedWorld, spec }));
      for (const entry of allowed) {
        const world = changes ? await newWorld(phase, operation) : sharedWorld;
        answers.push({ ...entry, world, spec: changes ? requestsFor(operation, world).find((s) => s.label === spec.label)! : spec });
      }
      for (const { who, expected, world, spec: sent } of answers) {
        const answer = await send(operation, sent, world, who);
        stats.requests += 1;
        stats.operations.add(operation.id);
        stats.pairs.add(`${phase} ${operation.id} ${who}`);
        const absent = answer.status === 404 && sent.absent?.test(JSON.parse(answer.text).reason as string);
        const got: Expected = [401, 403, 404, 501].includes(answer.status) && !absent ? (answer.status as Expected) : 'ok';
        const problem =
          answer.status >= 500 && answer.status !== 501
            ? `answered ${answer.status}`
            : got !== expected
              ? `expected ${expected}, got ${answer.status}`
              : undefined;
        if (problem) stats.mismatches.push(`${label} as ${who}: ${problem}: ${answer.text.slice(0, 300)}`);
        if ([401, 403].includes(answer.status) && !/^\{"code":40[13],"message":".{10,}"\}$/.test(answer.text))
          stats.mismatches.push(`${label} as ${who}: ${answer.status} not in the infra_error shape: ${answer.text.slice(0, 200)}`);
        const leaks = leaksIn(answer.text, who, expected, `${urlOf(operation, sent, world)} ${JSON.stringify(sent.body ?? '')}`, world);
        if (leaks.length) stats.leaks.push(`${label} as ${who} (${answer.status}): ${leaks.join(', ')}`);
        if (who === refused.at(-1)?.who && world === refusedWorld && changes) {
          const after = await recordsOf(refusedWorld);
          if (after !== before) stats.mismatches.push(`${label}: refused callers changed the records: ${before} → ${after}`);
        }
      }
    }
  }

  async function runPhase(phase: Phase, selected: Operation[]): Promise<void> {
    const shared = await newWorld(phase);
    const queue = [...selected];
    // A few operations at a time: each has worlds of its own, or only reads the shared one.
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let operation = queue.shift(); operation; operation = queue.shift()) await matrixOf(operation, phase, shared);
      }),
    );
  }

  it('answers every operation as the model says to every caller, with nothing leaked, the cluster finalizing', async () => {
    await runPhase('finalizing', OPERATIONS);
    expect({ mismatches: stats.mismatches, leaks: stats.leaks }).toEqual({ mismatches: [], leaks: [] });
    expect(new Set([...stats.pairs].filter((pair) => pair.startsWith('finalizing ')).map((pair) => pair.split(' ')[1])).size).toBe(OPERATIONS.length);
  }, 300_000);

  it('closes the installation to agents once the cluster is installed (every operation agents may call)', async () => {
    stats.mismatches.length = 0;
    stats.leaks.length = 0;
    const agentOperations = OPERATIONS.filter((operation) => operation.schemes.has('agentAuth'));
    expect(agentOperations.length).toBeGreaterThan(15);
    await runPhase('installed', agentOperations);
    expect({ mismatches: stats.mismatches, leaks: stats.leaks }).toEqual({ mismatches: [], leaks: [] });
  }, 300_000);
});
