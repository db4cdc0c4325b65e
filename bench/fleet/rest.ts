/** The automation's REST calls in the fleet benches' customer processes: timed, counted, and failing with a cause. */
import type { LatencyBook } from './contract.js';

export interface Answer {
  status: number;
  body: any;
  text: string;
}

/** A failed step of a cluster's life: `reason` is its cause (what failures are counted by), the message its detail. */
export class Failure extends Error {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super(detail);
  }
}

export const expectStatus = (answer: Answer, status: number, cause: string) => {
  if (answer.status !== status) throw new Failure(`${cause}: HTTP ${answer.status}`, answer.text.slice(0, 300));
};

/** A path with its ids and query left out: what calls are counted by. */
export const pathTemplate = (route: string) => route.replace(/\?.*/, '').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}');

/** A timer that ends early, without an error, when the signal aborts: the agent's own. */
export { sleep } from '../../agent/src/sleep.js';

export interface UserClient {
  call(method: string, route: string, body?: unknown): Promise<Answer>;
  /** The default OpenShift version the service offers, read once. */
  openshiftVersion(): Promise<string>;
}

/** Counts into `calls`, by name. */
export const counter = (calls: Map<string, number>) => (call: string) => void calls.set(call, (calls.get(call) ?? 0) + 1);

/**
 * A user with the admin token. Each answer is timed as a user call in `latencies`, counted by
 * path, and a 5xx is reported as a server error.
 */
export function userClient(
  options: { url: string; adminToken: string },
  latencies: LatencyBook,
  countCall: (call: string) => void,
  report: (message: { type: 'server-error'; status: number; call: string }) => void,
): UserClient {
  const call = async (method: string, route: string, body?: unknown): Promise<Answer> => {
    const sent = performance.now();
    const response = await fetch(`${options.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${options.adminToken}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    latencies.add('user calls', performance.now() - sent);
    const name = `user ${method} ${pathTemplate(route)}`;
    countCall(name);
    if (response.status >= 500) report({ type: 'server-error', status: response.status, call: name });
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  };
  let version: Promise<string> | undefined;
  return {
    call,
    openshiftVersion() {
      version ??= call('GET', '/openshift-versions').then((answer) => {
        expectStatus(answer, 200, 'listing versions');
        return Object.entries(answer.body as Record<string, { default?: boolean }>).find(([, v]) => v.default)![0];
      });
      return version;
    },
  };
}

/** The machine networks of the ZTP examples (cli/ztp/examples.ts): each cluster is in a datacenter of its own. */
export const MACHINE_NETWORKS = { singleNode: '192.168.112.0/24', compact: '192.168.111.0/24' } as const;

/**
 * Creates, through the REST API, a single-node cluster (user-managed networking) or a three-master
 * one (VIPs in the compact machine network), and its infra-env.
 */
export async function createClusterThroughRest(
  user: UserClient,
  inputs: { pullSecret: string; sshPublicKey: string },
  name: string,
  singleNode: boolean,
): Promise<{ clusterId: string; infraEnvId: string }> {
  const cluster = await user.call('POST', '/clusters', {
    name,
    openshift_version: await user.openshiftVersion(),
    pull_secret: inputs.pullSecret,
    base_dns_domain: 'example.com',
    ssh_public_key: inputs.sshPublicKey,
    ...(singleNode
      ? { control_plane_count: 1, high_availability_mode: 'None', user_managed_networking: true, machine_networks: [{ cidr: MACHINE_NETWORKS.singleNode }] }
      : { control_plane_count: 3, api_vips: [{ ip: '192.168.111.5' }], ingress_vips: [{ ip: '192.168.111.4' }] }),
  });
  expectStatus(cluster, 201, 'creating the cluster');
  const infraEnv = await user.call('POST', '/infra-envs', {
    name,
    pull_secret: inputs.pullSecret,
    cluster_id: cluster.body.id,
    ssh_authorized_key: inputs.sshPublicKey,
  });
  expectStatus(infraEnv, 201, 'creating the infra-env');
  return { clusterId: cluster.body.id as string, infraEnvId: infraEnv.body.id as string };
}
