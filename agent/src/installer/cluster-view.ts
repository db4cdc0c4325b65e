/**
 * What the installer and the controller read back from the service: `GET /v2/clusters/{id}` with its
 * hosts, and bounded waits on it.
 */
import { sleep } from '../sleep.js';
import type { AgentLog, ApiCallOptions, ApiTransport } from '../contracts.js';

export interface ClusterHostView {
  readonly id: string;
  readonly role?: string;
  readonly bootstrap?: boolean;
  readonly kind?: string;
  readonly status?: string;
  readonly infra_env_id?: string;
  readonly requested_hostname?: string;
  readonly progress?: { readonly current_stage?: string; readonly progress_info?: string };
}

export interface ClusterView {
  readonly id: string;
  readonly status?: string;
  readonly kind?: string;
  readonly openshift_version?: string;
  readonly control_plane_count?: number;
  readonly high_availability_mode?: string;
  readonly hosts?: readonly ClusterHostView[];
}

export type ClusterRead = { readonly status: 200; readonly cluster: ClusterView } | { readonly status: number; readonly cluster?: undefined };

export async function readCluster(api: ApiTransport, clusterId: string, retry: ApiCallOptions['retry'], signal?: AbortSignal): Promise<ClusterRead> {
  const response = await api.call('GET', `/v2/clusters/${clusterId}`, { retry, signal });
  if (response.status !== 200) {
    await response.text().catch(() => '');
    return { status: response.status };
  }
  return { status: 200, cluster: await response.json<ClusterView>() };
}

export function isControlPlane(host: ClusterHostView): boolean {
  return host.role === 'master' || host.role === 'bootstrap' || host.bootstrap === true;
}

export function stageOf(host: ClusterHostView): string | undefined {
  return host.progress?.current_stage;
}

/** Day-2: the host joins a cluster that is already running, so nobody waits for a control plane. */
export function isAddHostsInstall(cluster: ClusterView, hostId: string): boolean {
  if (cluster.kind === 'AddHostsCluster' || cluster.status === 'adding-hosts') return true;
  return cluster.hosts?.find((host) => host.id === hostId)?.kind === 'AddToExistingClusterHost';
}

export class AbortedError extends Error {
  constructor(what: string) {
    super(`stopped while ${what}`);
  }
}

export interface WaitOptions {
  readonly pollMs: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly log: AgentLog;
  /** What is being waited for, for logs and the timeout error ("2 masters to be Done"). */
  readonly what: string;
}

/**
 * Polls `check` until it answers true. Throws on timeout (the message becomes the host's Failed
 * progress_info) or when the signal aborts. A check that throws counts as "not yet": the service may
 * be briefly unreachable while hosts reboot.
 */
export async function waitFor(check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastLog = 0;
  for (;;) {
    if (options.signal?.aborted) throw new AbortedError(`waiting for ${options.what}`);
    try {
      if (await check()) return;
    } catch (error) {
      options.log.warn(`still waiting for ${options.what}`, { error: (error as Error).message });
    }
    const now = Date.now();
    if (now >= deadline) throw new Error(`timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for ${options.what}`);
    if (now - lastLog >= 30_000) {
      options.log.info(`waiting for ${options.what}`);
      lastLog = now;
    }
    await sleep(Math.min(options.pollMs, Math.max(0, deadline - now)), options.signal);
  }
}
