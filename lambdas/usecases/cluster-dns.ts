/**
 * Taking down the DNS records the install workflow published for a cluster
 * (installation-workflow.ts, publishDnsRecords), when the cluster is deregistered. Its own module so
 * that deregistering a cluster does not depend on the install workflow and all it calls.
 */
import type { Cluster } from '../domain/core/entities.js';
import type { Clock } from '../ports/clock.js';
import type { DnsZones } from '../ports/dns.js';
import type { Store } from '../ports/store.js';
import { recordEvent } from './events.js';

/** Removes what publishDnsRecords created (deregistering the cluster). */
export async function removeDnsRecords(deps: { dns: DnsZones; store: Store; clock: Clock }, cluster: Cluster): Promise<void> {
  const zone = cluster.attributes.dns_zone as string | undefined;
  const records = cluster.attributes.dns_records;
  if (!zone || !records?.length) return;
  await deps.dns.remove(zone, records);
  await recordEvent(deps, {
    name: 'cluster_dns_records_deleted',
    subject: { orgId: cluster.orgId, clusterId: cluster.clusterId },
    props: { zone, names: [...new Set(records.map((r) => r.name))].join(', ') },
  });
}
