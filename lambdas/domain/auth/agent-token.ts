/**
 * What an agent token is good for, and for how long (pure rules; usecases/agent-tokens.ts signs,
 * verifies and reads the records these rules look at). The whole model is described in
 * docs/api.md, "Agent tokens".
 *
 * - A token is baked into a discovery image (ISO, iPXE initrd) or a discovery.ign, and expires a
 *   configurable time after that image was made (AGENT_TOKEN_TTL_SECONDS, 14 days by default).
 *   Composed images are re-made with a fresh token once theirs is older than a renewal period, so
 *   every download hands out a token with nearly the whole lifetime ahead of it.
 * - A token names its infra-env's token epoch; regenerating the infra-env's signing key moves the
 *   epoch on, and tokens of an earlier epoch are superseded.
 * - An expired or superseded token still serves the installation under way that it started (hosts
 *   of its infra-env installing, their cluster installing, the controller's wrap-up): those hosts
 *   cannot be handed a new token.
 * - Once the cluster is installed, the installation's material (cluster files, credentials, host
 *   ignitions) is closed to agent tokens at once, and its reports (host progress, the controller's
 *   calls, logs) after the controller's wrap-up window.
 */
import type { HostStatus } from '../host/host-states.js';
import { HOST_INSTALLING_STATUSES } from '../host/host-states.js';

/** Upstream's local auth mode issues agent tokens without expiry; ours last this long by default. */
export const DEFAULT_AGENT_TOKEN_TTL_SECONDS = 14 * 24 * 3600;
/** A composed image is re-made with a fresh token at most this long after its token was issued. */
export const MAX_IMAGE_TOKEN_RENEWAL_SECONDS = 24 * 3600;
/**
 * How long after an installation completed the controller's reports and logs are still taken from
 * agents. The service declares a cluster installed once its hosts, operators and kubeconfig say so,
 * which may come before the controller's last calls (its remaining finalizing stages and
 * complete-installation, which it retries); it sends its logs once it has seen the cluster
 * installed (its status poll runs every minute) and retries that upload for up to 70 minutes.
 */
export const CONTROLLER_WRAP_UP_SECONDS = 2 * 3600;

/** Checks a configured lifetime: whole seconds, at least a minute. */
export function agentTokenTtlProblem(raw: string): string | undefined {
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 60) return `AGENT_TOKEN_TTL_SECONDS must be a whole number of seconds, at least 60, not ${JSON.stringify(raw)}`;
  return undefined;
}

/** How often a composed image's token is renewed: a quarter of the lifetime, at most a day. */
export function imageTokenRenewalSeconds(ttlSeconds: number): number {
  return Math.max(1, Math.min(MAX_IMAGE_TOKEN_RENEWAL_SECONDS, Math.floor(ttlSeconds / 4)));
}

/**
 * The token an image composed at `now` carries: the renewal window it belongs to (part of the
 * image's fingerprint, so an image is reused within its window only) and its expiry, counted from
 * the window's start. A download therefore hands out a token with at least ttl - renewal ahead.
 */
export function imageTokenWindow(now: Date, ttlSeconds: number): { window: number; expiresAt: Date } {
  const renewal = imageTokenRenewalSeconds(ttlSeconds);
  const window = Math.floor(now.getTime() / 1000 / renewal);
  return { window, expiresAt: new Date((window * renewal + ttlSeconds) * 1000) };
}

/**
 * Which calls agents make, by operationId (the operations of openapi.yaml whose security admits
 * agentAuth):
 * - discovery: the discovery agent on a booted host, within its infra-env;
 * - cluster-read: reading the cluster and its hosts (installer and controller; no secrets);
 * - material: what the on-host installer fetches to install (the cluster's ignitions and
 *   install-config, kubeconfig-noingress, the host's ignition);
 * - report: installation progress the installer and the controller report for hosts;
 * - controller: calls only the in-cluster assisted-installer-controller makes;
 * - logs: log uploads and their progress (hosts' logs_sender and the controller).
 */
export type AgentCallKind = 'discovery' | 'cluster-read' | 'material' | 'report' | 'controller' | 'logs';

export const AGENT_CALLS: Readonly<Record<string, AgentCallKind>> = {
  GetInfraEnv: 'discovery',
  v2RegisterHost: 'discovery',
  v2ListHosts: 'discovery',
  v2GetNextSteps: 'discovery',
  v2PostStepReply: 'discovery',
  v2DownloadInfraEnvFiles: 'discovery',
  v2GetCluster: 'cluster-read',
  ListClusterHosts: 'cluster-read',
  V2DownloadClusterFiles: 'material',
  V2DownloadClusterCredentials: 'material',
  v2DownloadHostIgnition: 'material',
  v2UpdateHostInstallProgress: 'report',
  v2UpdateClusterFinalizingProgress: 'controller',
  V2ListOfClusterOperators: 'controller',
  v2ReportMonitoredOperatorStatus: 'controller',
  v2UploadClusterIngressCert: 'controller',
  v2CompleteInstallation: 'controller',
  v2TriggerEvent: 'controller',
  v2UpdateClusterLogsProgress: 'logs',
  V2UploadLogs: 'logs',
  v2UpdateHostLogsProgress: 'logs',
};

/** Calls the controller's wrap-up may still make once the cluster is installed. */
const WRAP_UP: ReadonlySet<AgentCallKind> = new Set(['report', 'controller', 'logs']);
/** Cluster statuses of an installation under way. */
const CLUSTER_INSTALLING: ReadonlySet<string> = new Set(['preparing-for-installation', 'installing', 'installing-pending-user-action', 'finalizing']);
const HOST_INSTALLING: ReadonlySet<string> = new Set<HostStatus>(HOST_INSTALLING_STATUSES);

export type TokenStanding = 'current' | 'expired' | 'superseded';

export interface AgentCallContext {
  operationId: string;
  standing: TokenStanding;
  /** When the token expires (for the reason given when it has). */
  tokenExpiresAt?: Date;
  /** The cluster the call is about (named in the path, or the host's), when the rules need it. */
  cluster?: { clusterId: string; status: string; installCompletedAt?: string };
  /** The host the path names, when it is one of the token's infra-env. */
  host?: { hostId: string; status: string };
  now: Date;
}

export type AgentCallVerdict = { allowed: true } | { allowed: false; status: 401 | 403; reason: string };

/**
 * Which records the rules need for a call: none for a current token's discovery and reads; for a
 * stale token, the host the path names (is it installing?) and, beyond discovery, the cluster.
 */
export function agentCallNeeds(operationId: string, standing: TokenStanding): { cluster: boolean; host: boolean } {
  const kind = AGENT_CALLS[operationId];
  if (kind === undefined) return { cluster: false, host: false };
  if (standing !== 'current') return { cluster: kind !== 'discovery', host: true };
  return { cluster: kind !== 'discovery' && kind !== 'cluster-read', host: false };
}

function wrapUpOpen(cluster: NonNullable<AgentCallContext['cluster']>, now: Date): boolean {
  const completed = cluster.installCompletedAt ? Date.parse(cluster.installCompletedAt) : Number.NaN;
  return Number.isFinite(completed) && now.getTime() - completed < CONTROLLER_WRAP_UP_SECONDS * 1000;
}

/** Whether the call is part of an installation under way, which an expired or superseded token still serves. */
function installationUnderWay(context: AgentCallContext): boolean {
  const kind = AGENT_CALLS[context.operationId];
  if (kind === undefined) return false;
  if (context.host && HOST_INSTALLING.has(context.host.status)) return true;
  if (kind === 'discovery' || !context.cluster) return false;
  if (CLUSTER_INSTALLING.has(context.cluster.status)) return true;
  return WRAP_UP.has(kind) && context.cluster.status === 'installed' && wrapUpOpen(context.cluster, context.now);
}

/** Why a token that is not current is refused: what happened, and what to do. */
function staleTokenReason(standing: Exclude<TokenStanding, 'current'>, expiresAt: Date | undefined): string {
  const renew = 'Download a new discovery image (or discovery.ign) for the infra-env and boot the host from it';
  if (standing === 'superseded') return `The agent token was superseded when the infra-env's signing key was regenerated. ${renew}`;
  const when = expiresAt && Number.isFinite(expiresAt.getTime()) ? ` at ${expiresAt.toISOString()}` : '';
  return `The agent token expired${when}: the discovery image or ignition it came in is too old. ${renew}`;
}

/** The day-1 installation's own files and credentials: no day-2 host needs them. */
const DAY1_MATERIAL: ReadonlySet<string> = new Set(['V2DownloadClusterFiles', 'V2DownloadClusterCredentials']);

const closedRefusal = (clusterId: string, status: string, what: string): AgentCallVerdict => ({
  allowed: false,
  status: 403,
  reason: `Cluster ${clusterId} is ${status === 'installed' ? 'installed' : 'installed and adding hosts'}: ${what}. Its files and credentials are for users, with an API token of the user role`,
});

/**
 * Decides an agent's call from the token's standing and, where it matters, the state of the
 * cluster or host the call is about. Scope (own infra-env, own cluster) is checked where the
 * resources are found; this decides what a valid token may still do.
 */
export function judgeAgentCall(context: AgentCallContext): AgentCallVerdict {
  const kind = AGENT_CALLS[context.operationId];
  if (context.standing !== 'current' && !installationUnderWay(context)) {
    return { allowed: false, status: 401, reason: staleTokenReason(context.standing, context.tokenExpiresAt) };
  }
  const cluster = context.cluster;
  if (!cluster || kind === undefined) return { allowed: true };
  if (cluster.status === 'installed') {
    if (kind === 'material')
      return closedRefusal(cluster.clusterId, cluster.status, 'agent tokens may no longer fetch its installation files, credentials or ignitions');
    if (WRAP_UP.has(kind) && !wrapUpOpen(cluster, context.now)) {
      return closedRefusal(
        cluster.clusterId,
        cluster.status,
        `its installation completed more than ${CONTROLLER_WRAP_UP_SECONDS / 3600} hours ago, and agent tokens may no longer report on it or upload its logs`,
      );
    }
  }
  // Adding hosts after the installation: day-2 hosts install (their progress, ignition and logs),
  // but the day-1 files and credentials are no longer anyone's to fetch with an agent token.
  if (cluster.status === 'adding-hosts' && DAY1_MATERIAL.has(context.operationId)) {
    return closedRefusal(cluster.clusterId, cluster.status, 'agent tokens may no longer fetch its installation files or credentials');
  }
  return { allowed: true };
}
