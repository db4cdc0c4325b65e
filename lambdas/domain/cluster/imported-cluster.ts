/**
 * An imported cluster (POST /v2/clusters/import): the record of an OpenShift cluster installed
 * elsewhere, made so that hosts can be added to it. It is a day-2 cluster from its first moment
 * (kind `AddHostsCluster`, status `adding-hosts`) and knows only what the import says: its name,
 * the API's host name, the base domain read from that name, and the OpenShift cluster's id. No
 * release, pull secret, networks or VIPs: the hosts added bring their own infra-env (its release
 * and pull secret), and the existing cluster serves their ignition.
 *
 * Upstream's rules (V2ImportClusterInternal), checked against its service:
 * - an API host name of the form `api.<name>.<base domain>` gives both the cluster's name, which
 *   replaces the one sent, and its base domain; any other (an IP address, `api-int.…`, two labels)
 *   gives neither, and the name sent is kept;
 * - the name is held to the baremetal platform's name rule, which admits an empty name;
 * - `openshift_version` is kept as sent, unchecked; the same `openshift_cluster_id` may be
 *   imported more than once.
 */
import type { Cluster, ClusterAttributes } from '../core/entities.js';
import { badRequest } from '../core/errors.js';
import type { Schemas } from '../../../contracts/wire.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import { CLUSTER_STATUS_INFO } from './cluster-state-rules.js';

export type ImportClusterParams = Schemas['import-cluster-params'];

export const ADD_HOSTS_CLUSTER_KIND = 'AddHostsCluster';

/**
 * Upstream's cluster-name rule for platforms other than `none`: DNS labels' characters, no dots,
 * starting and ending with a letter or digit; the empty name passes.
 */
const BAREMETAL_CLUSTER_NAME = /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
/**
 * Upstream sets no bound. A name longer than a whole DNS name cannot be the label of the API's
 * host name, and the name is part of a store index key, whose size is bounded.
 */
const MAX_IMPORTED_NAME_LENGTH = 253;

/** The name and base domain an API host name `api.<name>.<base domain>` implies; undefined for any other. */
export function apiHostnameParts(hostname: string): { clusterName: string; baseDomain: string } | undefined {
  const first = hostname.indexOf('.');
  const second = first < 0 ? -1 : hostname.indexOf('.', first + 1);
  // An IP address never starts with "api.", so it gives nothing, as upstream's IP check decides.
  if (second < 0 || hostname.slice(0, first) !== 'api') return undefined;
  return { clusterName: hostname.slice(first + 1, second), baseDomain: hostname.slice(second + 1) };
}

export function importedClusterNameProblem(name: string): string | undefined {
  if (!BAREMETAL_CLUSTER_NAME.test(name)) {
    return (
      `Cluster name format is not valid: '${name}'. Name must start and end with either a letter or number and consist of lower-case letters, numbers, and hyphens. ` +
      'Subdomains in cluster names are only valid with none platform.'
    );
  }
  if (name.length > MAX_IMPORTED_NAME_LENGTH)
    return `Cluster name is ${name.length} characters long; an imported cluster's name may have at most ${MAX_IMPORTED_NAME_LENGTH}`;
  return undefined;
}

export function createImportedClusterRecord(
  params: ImportClusterParams,
  context: { orgId: string; clusterId: string; now: string; userName: string },
): Omit<Cluster, 'version'> {
  const hostname = params.api_vip_dnsname;
  const implied = apiHostnameParts(hostname);
  const name = implied?.clusterName ?? params.name;
  const problem = importedClusterNameProblem(name);
  if (problem) throw badRequest(problem);
  const attributes: ClusterAttributes = {
    kind: ADD_HOSTS_CLUSTER_KIND,
    imported: true,
    openshift_cluster_id: params.openshift_cluster_id,
    api_vip_dns_name: hostname,
    ...(typeof params.openshift_version === 'string' && params.openshift_version !== '' ? { openshift_version: params.openshift_version } : {}),
    ...(implied ? { base_dns_domain: implied.baseDomain } : {}),
    // Upstream's import sets none of a new cluster's defaults: its stored record reads back with
    // empty disk encryption and external platform settings, and no feature usage.
    platform: { type: 'baremetal', external: {} },
    disk_encryption: {},
    load_balancer: { type: 'cluster-managed' },
    ...emptyNetworkLists(),
    status_info: CLUSTER_STATUS_INFO.addingHosts,
    user_name: context.userName,
  };
  return {
    orgId: context.orgId,
    clusterId: context.clusterId,
    name,
    status: 'adding-hosts',
    createdAt: context.now,
    updatedAt: context.now,
    attributes,
  };
}

/**
 * The fields upstream's import answer leaves out: its lists (Go's nil slices, sent as null, which
 * openapi.yaml does not allow for all of them: left out here, which a client reads the same way),
 * and what it sets only on reading the record back.
 */
const NOT_IN_THE_IMPORT_ANSWER = [
  'api_vips',
  'ingress_vips',
  'cluster_networks',
  'service_networks',
  'machine_networks',
  'monitored_operators',
  'operator_bundles',
  'ignition_endpoint',
  'progress',
  'disk_encryption',
  'feature_usage',
] as const;

/**
 * The answer to the import itself, as upstream gives it: the cluster as its import built it in
 * memory, not read back from the store. Its lists are absent, it carries no disk encryption,
 * external platform settings, ignition endpoint or progress yet, and its image_info holds the time
 * of the import (the stored record's reads back as Go's zero time).
 */
export function importAnswer(view: Record<string, unknown>, importedAt: string): Record<string, unknown> {
  const answer: Record<string, unknown> = { ...view };
  for (const field of NOT_IN_THE_IMPORT_ANSWER) delete answer[field];
  const platform = answer.platform;
  if (isJsonObject(platform)) {
    const { external: _external, ...rest } = platform;
    answer.platform = rest;
  }
  const imageInfo = answer.image_info;
  answer.image_info = { ...(imageInfo && typeof imageInfo === 'object' ? imageInfo : {}), created_at: importedAt };
  return answer;
}

/** The lists upstream answers empty for a cluster that has none of them (imported and disconnected clusters). */
export function emptyNetworkLists(): Record<string, never[]> {
  return { api_vips: [], ingress_vips: [], cluster_networks: [], service_networks: [], machine_networks: [], monitored_operators: [] };
}
