/**
 * Finding a resource on behalf of a caller. Every read is addressed by the caller's organisation,
 * so another organisation's resource is simply not found; agents are further held to their infra-env.
 */
import type { Cluster, Host, InfraEnv } from '../domain/core/entities.js';
import { notFound } from '../domain/core/errors.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

export async function findCluster(store: Store, principal: Principal, clusterId: string): Promise<Cluster> {
  const cluster = await store.clusters.get({ orgId: principal.orgId, clusterId });
  if (!cluster) throw notFound(`Cluster ${clusterId} not found`);
  if (principal.kind === 'agent') {
    const infraEnv = principal.infraEnvCluster ?? (await store.infraEnvs.get({ orgId: principal.orgId, infraEnvId: principal.infraEnvId }));
    const hostsOfAgentInCluster = infraEnv?.clusterId === clusterId;
    if (!hostsOfAgentInCluster) throw notFound(`Cluster ${clusterId} not found`);
  }
  return cluster;
}

export async function findInfraEnv(store: Store, principal: Principal, infraEnvId: string): Promise<InfraEnv> {
  if (principal.kind === 'agent' && principal.infraEnvId !== infraEnvId) throw notFound(`Infra-env ${infraEnvId} not found`);
  const infraEnv = await store.infraEnvs.get({ orgId: principal.orgId, infraEnvId });
  if (!infraEnv) throw notFound(`Infra-env ${infraEnvId} not found`);
  return infraEnv;
}

export async function findHost(store: Store, principal: Principal, infraEnvId: string, hostId: string): Promise<Host> {
  if (principal.kind === 'agent' && principal.infraEnvId !== infraEnvId) throw notFound(`Host ${hostId} not found`);
  const host = await store.hosts.get({ orgId: principal.orgId, infraEnvId, hostId });
  if (!host) throw notFound(`Host ${hostId} in infra-env ${infraEnvId} not found`);
  return host;
}

/** A record read a moment ago may be gone when it is written (deleted concurrently): that is a 404. */
export function stillThere<T>(record: T | undefined, what: string): T {
  if (record === undefined) throw notFound(`${what} not found`);
  return record;
}
