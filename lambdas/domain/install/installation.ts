/**
 * Starting an installation, as upstream's install handler does it before the asynchronous part:
 * which hosts take part, the role each auto-assign host gets, which control-plane host boots the
 * cluster (bootstrap), and the `install` step each host is sent once the cluster is installing.
 * Pure: the use case loads, persists and emits.
 */
import type { Cluster, Host } from '../core/entities.js';
import { conflict } from '../core/errors.js';
import type { HostRole } from '../host/host-states.js';
import { hostInventory, type InventoryDisk } from '../host/inventory.js';

/** Hosts that join an installation: everything else (disabled, disconnected…) blocks it through validations first. */
export const INSTALLABLE_HOST_STATUS = 'known';

export interface InstallationPlan {
  /** host id → the role it installs with (never auto-assign). */
  readonly roles: ReadonlyMap<string, Exclude<HostRole, 'auto-assign' | 'bootstrap'>>;
  /** The control-plane host that runs the bootstrap control plane; undefined for a single node (bootstrap in place). */
  readonly bootstrapHostId: string | undefined;
}

type InstallRole = Exclude<HostRole, 'auto-assign' | 'bootstrap'>;

/**
 * `effectiveRoles` gives the role each auto-assign host is taken to have (the suggestion the
 * validations used, so what the user saw as valid is what installs).
 */
export function planInstallation(cluster: Cluster, hosts: readonly Host[], effectiveRoles: ReadonlyMap<string, HostRole>): InstallationPlan {
  const roles = new Map<string, InstallRole>();
  for (const host of hosts) {
    const assigned = host.attributes.role ?? 'auto-assign';
    const role = assigned === 'auto-assign' ? (effectiveRoles.get(host.hostId) ?? 'auto-assign') : assigned;
    if (role === 'auto-assign') throw conflict(`Host ${host.hostId} has no role yet: wait for its inventory or set its role`);
    roles.set(host.hostId, role === 'bootstrap' ? 'master' : role);
  }
  const controlPlane = [...roles]
    .filter(([, role]) => role === 'master')
    .map(([id]) => id)
    .sort();
  const expected = cluster.attributes.control_plane_count ?? 3;
  if (controlPlane.length < Math.min(expected, 1)) throw conflict('The cluster has no control-plane host to install');
  const existing = hosts.find((host) => host.attributes.bootstrap && roles.get(host.hostId) === 'master');
  // Upstream keeps an earlier choice, else takes the last control-plane host by id.
  const bootstrapHostId = expected === 1 ? undefined : (existing?.hostId ?? controlPlane[controlPlane.length - 1]);
  return { roles, bootstrapHostId };
}

/** The role the install step and the installer use: the bootstrap host installs as `bootstrap`. */
export function installRoleOf(host: Host): 'bootstrap' | InstallRole {
  const role = host.attributes.role;
  if (host.attributes.bootstrap || role === 'bootstrap') return 'bootstrap';
  // A host installs only once it has a role (planInstallation); one without is taken as a worker.
  return role === undefined || role === 'auto-assign' ? 'worker' : role;
}

/** Upstream's InstallCmdRequest: args[0] of the `install` step. */
export interface InstallCommandRequest {
  cluster_id: string;
  infra_env_id: string;
  host_id: string;
  role: 'bootstrap' | InstallRole;
  boot_device: string;
  installer_image: string;
  controller_image: string;
  agent_image?: string;
  openshift_version: string;
  control_plane_count: number;
  installer_args?: string;
  disks_to_format: string[];
  proxy?: { http_proxy?: string; https_proxy?: string; no_proxy?: string };
  service_ips?: string[];
  check_cvo: boolean;
  skip_installation_disk_cleanup?: boolean;
  must_gather_image?: string;
  mco_image?: string;
}

export interface InstallImages {
  installer: string;
  controller: string;
  agent: string;
}

/** The disk the host installs to: the one chosen (by the user or at install time), else the first eligible. */
export function installationDisk(host: Host): InventoryDisk | undefined {
  const attributes = host.attributes;
  const reference = attributes.installation_disk_id || attributes.installation_disk_path;
  const disks = hostInventory(host)?.disks ?? [];
  const chosen = reference
    ? disks.find((disk) => disk.id === reference || disk.path === reference || (disk.name && `/dev/${disk.name}` === reference))
    : undefined;
  return chosen ?? disks.find((disk) => disk.installation_eligibility?.eligible);
}

/** A device path the installer can open; by-id paths survive device renumbering across boots. */
export function bootDevice(host: Host): string | undefined {
  const disk = installationDisk(host);
  if (!disk) return undefined;
  return (disk.id?.startsWith('/dev/') ? disk.id : undefined) || disk.path || (disk.name ? `/dev/${disk.name}` : undefined);
}

export function installCommandRequest(cluster: Cluster, host: Host, images: InstallImages): InstallCommandRequest | undefined {
  const device = bootDevice(host);
  if (!device) return undefined;
  const attributes = cluster.attributes;
  const proxy = {
    ...(attributes.http_proxy ? { http_proxy: attributes.http_proxy } : {}),
    ...(attributes.https_proxy ? { https_proxy: attributes.https_proxy } : {}),
    ...(attributes.no_proxy ? { no_proxy: attributes.no_proxy } : {}),
  };
  const serviceIps = (attributes.service_networks ?? []).map((network) => firstServiceIp(network.cidr ?? '')).filter((ip): ip is string => !!ip);
  return {
    cluster_id: cluster.clusterId,
    infra_env_id: host.infraEnvId,
    host_id: host.hostId,
    role: installRoleOf(host),
    boot_device: device,
    installer_image: images.installer,
    controller_image: images.controller,
    agent_image: images.agent,
    openshift_version: String(attributes.openshift_version ?? ''),
    control_plane_count: attributes.control_plane_count ?? 3,
    ...(host.attributes.installer_args ? { installer_args: host.attributes.installer_args } : {}),
    disks_to_format: [],
    ...(Object.keys(proxy).length ? { proxy } : {}),
    ...(serviceIps.length ? { service_ips: serviceIps } : {}),
    check_cvo: true,
  };
}

/** The cluster DNS service answers on the service network's 10th address (upstream passes it for the installer's DNS fix-up). */
function firstServiceIp(cidr: string): string | undefined {
  const [address] = cidr.split('/');
  if (!address || address.includes(':')) return undefined;
  const octets = address.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => Number.isNaN(o))) return undefined;
  octets[3] = (octets[3] ?? 0) + 10;
  return octets.join('.');
}

/** DNS names a managed base domain gets for the cluster, pointing at the VIPs (or the single node). */
export function clusterDnsRecords(cluster: Cluster, hosts: readonly Host[]): { name: string; type: 'A' | 'AAAA'; values: string[]; ttl: number }[] {
  const attributes = cluster.attributes;
  const base = `${cluster.name}.${String(attributes.base_dns_domain ?? '')}`;
  const addresses = (vips: readonly { ip?: string }[] | null | undefined) => (vips ?? []).flatMap((vip) => (vip.ip === undefined ? [] : [vip.ip]));
  let api = addresses(attributes.api_vips);
  let ingress = addresses(attributes.ingress_vips);
  if (api.length === 0 || ingress.length === 0) {
    // User-managed networking: point the names at the control plane (a single node takes everything).
    const nodeIps = hosts
      .filter((host) => installRoleOf(host) !== 'worker')
      .map(
        (host) =>
          hostInventory(host)
            ?.interfaces?.flatMap((nic) => nic.ipv4_addresses ?? [])[0]
            ?.split('/')[0],
      )
      .filter((ip): ip is string => !!ip);
    if (api.length === 0) api = nodeIps;
    if (ingress.length === 0) ingress = nodeIps;
  }
  const record = (name: string, values: string[]) => {
    const v4 = values.filter((ip) => !ip.includes(':'));
    const v6 = values.filter((ip) => ip.includes(':'));
    return [
      ...(v4.length ? [{ name, type: 'A' as const, values: v4, ttl: 60 }] : []),
      ...(v6.length ? [{ name, type: 'AAAA' as const, values: v6, ttl: 60 }] : []),
    ];
  };
  return [...record(`api.${base}`, api), ...record(`api-int.${base}`, api), ...record(`*.apps.${base}`, ingress)];
}

/** What the install-cluster state machine is started with and hands from task to task. */
export interface InstallWorkflowInput {
  orgId: string;
  clusterId: string;
  /** The installation attempt the execution belongs to: a task of an older attempt does nothing. */
  attempt: number;
  pollSeconds: number;
}
