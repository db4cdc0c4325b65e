/**
 * What simulated hosts need to know about their cluster to answer like hosts in a correctly set up
 * datacenter (DNS records for the API and ingress VIPs): read through the agent's own API access,
 * shared by the whole fleet and refreshed at most every few seconds.
 */
import type { AgentLog, ApiTransport } from '../contracts.js';

export interface ClusterFacts {
  readonly clusterId?: string;
  readonly name?: string;
  readonly baseDnsDomain?: string;
  readonly apiVips: readonly string[];
  readonly ingressVips: readonly string[];
}

const NOTHING: ClusterFacts = { apiVips: [], ingressVips: [] };

export class ClusterView {
  private cached: { facts: ClusterFacts; at: number } | undefined;
  private pending: Promise<ClusterFacts> | undefined;

  constructor(
    private readonly api: ApiTransport,
    private readonly infraEnvId: string,
    private readonly log: AgentLog,
    private readonly maxAgeMs = 10_000,
  ) {}

  async facts(): Promise<ClusterFacts> {
    if (this.cached && Date.now() - this.cached.at < this.maxAgeMs) return this.cached.facts;
    this.pending ??= this.read().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async read(): Promise<ClusterFacts> {
    try {
      const infraEnv = await this.api.call('GET', `/v2/infra-envs/${this.infraEnvId}`);
      if (infraEnv.status !== 200) return this.keep(NOTHING);
      const clusterId = (await infraEnv.json<{ cluster_id?: string }>()).cluster_id;
      if (!clusterId) return this.keep(NOTHING);
      const response = await this.api.call('GET', `/v2/clusters/${clusterId}`);
      if (response.status !== 200) return this.keep({ ...NOTHING, clusterId });
      const cluster = await response.json<{ name?: string; base_dns_domain?: string; api_vips?: { ip: string }[]; ingress_vips?: { ip: string }[] }>();
      return this.keep({
        clusterId,
        ...(cluster.name ? { name: cluster.name } : {}),
        ...(cluster.base_dns_domain ? { baseDnsDomain: cluster.base_dns_domain } : {}),
        apiVips: (cluster.api_vips ?? []).map((vip) => vip.ip),
        ingressVips: (cluster.ingress_vips ?? []).map((vip) => vip.ip),
      });
    } catch (error) {
      this.log.warn(`simulation: cannot read the cluster's settings: ${(error as Error).message}`);
      return this.cached?.facts ?? NOTHING;
    }
  }

  private keep(facts: ClusterFacts): ClusterFacts {
    this.cached = { facts, at: Date.now() };
    return facts;
  }
}
