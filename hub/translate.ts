/**
 * Upstream's custom resources → the REST API's parameters, and back. Pure: no I/O. A problem in a
 * spec is returned as a sentence naming the resource and the field, for the SpecSynced condition;
 * what only the service can judge (CIDR overlaps, VIPs outside the machine network...) is left to
 * it, and its 4xx reason reaches the condition the same way.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Cluster, ClusterCreateParams, ClusterUpdateParams, Host, InfraEnv, InfraEnvCreateParams, InfraEnvUpdateParams } from '../contracts/wire.js';
import { ANNOTATION, type KubeObject } from './objects.js';
import { PLATFORM_TYPES, releaseFromImage } from '../contracts/release-image.js';
import { clusterSettingsUpdate } from '../contracts/cluster-differences.js';
import { storedStaticNetworkConfig } from '../contracts/static-network-config.js';
import { isJsonObject, text } from '../contracts/json-shapes.js';
import { hyperthreadingOfModes } from '../contracts/hyperthreading.js';

export { releaseFromImage };

export class SpecProblem extends Error {}

function vipList(spec: Record<string, any>, plural: string, singular: string): { ip: string }[] | undefined {
  const list =
    Array.isArray(spec[plural]) && spec[plural].length > 0
      ? (spec[plural] as string[])
      : typeof spec[singular] === 'string' && spec[singular]
        ? [spec[singular]]
        : undefined;
  return list?.map((ip) => ({ ip }));
}

function hyperthreading(spec: Record<string, any>): ClusterCreateParams['hyperthreading'] | undefined {
  const masters = spec.controlPlane?.hyperthreading as string | undefined;
  const workers = (Array.isArray(spec.compute) ? spec.compute : [])
    .map((pool: any) => pool?.hyperthreading as string | undefined)
    .find((mode: string | undefined) => mode);
  return hyperthreadingOfModes(masters || undefined, workers || undefined);
}

export interface ClusterInputs {
  clusterDeployment: KubeObject;
  agentClusterInstall: KubeObject;
  clusterImageSet: KubeObject;
  pullSecret: string;
}

export interface ClusterPlan {
  params: ClusterCreateParams;
  /** The install-config overrides annotation, normalised JSON text, or undefined when absent. */
  installConfigOverrides?: string;
  expected: { controlPlane: number; workers: number };
}

/** The cluster-create-params a ClusterDeployment + AgentClusterInstall + ClusterImageSet describe; throws SpecProblem. */
export function clusterPlan(inputs: ClusterInputs): ClusterPlan {
  const cd = inputs.clusterDeployment.spec ?? {};
  const aci = inputs.agentClusterInstall.spec ?? {};
  const cdName = `ClusterDeployment ${inputs.clusterDeployment.metadata.name}`;
  const aciName = `AgentClusterInstall ${inputs.agentClusterInstall.metadata.name}`;
  const name = cd.clusterName as string | undefined;
  if (!name) throw new SpecProblem(`${cdName}: spec.clusterName is required`);
  const baseDomain = cd.baseDomain as string | undefined;
  if (!baseDomain) throw new SpecProblem(`${cdName}: spec.baseDomain is required`);
  const releaseImage = inputs.clusterImageSet.spec?.releaseImage as string | undefined;
  if (!releaseImage) throw new SpecProblem(`ClusterImageSet ${inputs.clusterImageSet.metadata.name}: spec.releaseImage is required`);
  const release = releaseFromImage(releaseImage);
  if (!release) {
    throw new SpecProblem(
      `ClusterImageSet ${inputs.clusterImageSet.metadata.name}: cannot tell the OpenShift version from spec.releaseImage "${releaseImage}"; use a tagged release image such as quay.io/openshift-release-dev/ocp-release:4.18.52-x86_64`,
    );
  }
  const controlPlane = Number(aci.provisionRequirements?.controlPlaneAgents ?? 0);
  if (!Number.isInteger(controlPlane) || controlPlane < 1 || controlPlane === 2 || controlPlane > 5) {
    throw new SpecProblem(
      `${aciName}: spec.provisionRequirements.controlPlaneAgents must be 1 (single node) or 3 to 5, not ${String(aci.provisionRequirements?.controlPlaneAgents)}`,
    );
  }
  const workers = Number(aci.provisionRequirements?.workerAgents ?? 0);
  const singleNode = controlPlane === 1;
  const networking = aci.networking ?? {};
  const platformName = aci.platformType as string | undefined;
  let platformType = platformName ? PLATFORM_TYPES[platformName] : undefined;
  if (platformName && !platformType)
    throw new SpecProblem(`${aciName}: spec.platformType must be one of ${Object.keys(PLATFORM_TYPES).join(', ')}, not "${platformName}"`);
  const userManaged = typeof networking.userManagedNetworking === 'boolean' ? (networking.userManagedNetworking as boolean) : undefined;
  if (!platformType && (userManaged || singleNode)) platformType = 'none';
  const proxy = aci.proxy ?? {};

  let installConfigOverrides: string | undefined;
  const annotation = inputs.agentClusterInstall.metadata.annotations?.[ANNOTATION.installConfigOverrides];
  if (annotation !== undefined && annotation !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(annotation);
    } catch (error) {
      throw new SpecProblem(`${aciName}: annotation ${ANNOTATION.installConfigOverrides} is not JSON: ${(error as Error).message}`);
    }
    if (!isJsonObject(parsed))
      throw new SpecProblem(`${aciName}: annotation ${ANNOTATION.installConfigOverrides} must be a JSON object of install-config fields`);
    installConfigOverrides = JSON.stringify(parsed);
  }

  const apiVips = vipList(aci, 'apiVIPs', 'apiVIP');
  const ingressVips = vipList(aci, 'ingressVIPs', 'ingressVIP');
  const threads = hyperthreading(aci);
  const params: ClusterCreateParams = {
    name,
    base_dns_domain: baseDomain,
    openshift_version: release.version,
    ocp_release_image: releaseImage,
    cpu_architecture: release.cpuArchitecture as ClusterCreateParams['cpu_architecture'],
    pull_secret: inputs.pullSecret,
    control_plane_count: controlPlane,
    high_availability_mode: singleNode ? 'None' : 'Full',
    ...(Array.isArray(networking.clusterNetwork) && networking.clusterNetwork.length
      ? { cluster_networks: networking.clusterNetwork.map((n: any) => ({ cidr: n.cidr, ...(n.hostPrefix ? { host_prefix: n.hostPrefix } : {}) })) }
      : {}),
    ...(Array.isArray(networking.serviceNetwork) && networking.serviceNetwork.length
      ? { service_networks: networking.serviceNetwork.map((cidr: string) => ({ cidr })) }
      : {}),
    ...(Array.isArray(networking.machineNetwork) && networking.machineNetwork.length
      ? { machine_networks: networking.machineNetwork.map((n: any) => ({ cidr: n.cidr })) }
      : {}),
    ...(networking.networkType ? { network_type: networking.networkType } : {}),
    ...(userManaged !== undefined ? { user_managed_networking: userManaged } : singleNode ? { user_managed_networking: true } : {}),
    ...(platformType ? { platform: { type: platformType } } : {}),
    ...(apiVips ? { api_vips: apiVips } : {}),
    ...(ingressVips ? { ingress_vips: ingressVips } : {}),
    ...(aci.sshPublicKey ? { ssh_public_key: aci.sshPublicKey } : {}),
    ...(proxy.httpProxy ? { http_proxy: proxy.httpProxy } : {}),
    ...(proxy.httpsProxy ? { https_proxy: proxy.httpsProxy } : {}),
    ...(proxy.noProxy ? { no_proxy: proxy.noProxy } : {}),
    ...(typeof aci.mastersSchedulable === 'boolean' ? { schedulable_masters: aci.mastersSchedulable } : {}),
    ...(threads ? { hyperthreading: threads } : {}),
    ...(aci.diskEncryption
      ? {
          disk_encryption: {
            ...(aci.diskEncryption.enableOn ? { enable_on: aci.diskEncryption.enableOn } : {}),
            ...(aci.diskEncryption.mode ? { mode: aci.diskEncryption.mode } : {}),
            ...(aci.diskEncryption.tangServers ? { tang_servers: aci.diskEncryption.tangServers } : {}),
          },
        }
      : {}),
  };
  return { params, ...(installConfigOverrides ? { installConfigOverrides } : {}), expected: { controlPlane, workers } };
}

/** The PATCH that brings a registered cluster to what the resources ask for; empty when nothing differs. */
export function clusterUpdate(existing: Cluster, want: ClusterCreateParams): ClusterUpdateParams {
  return clusterSettingsUpdate(existing, want, ['name']);
}

/** The manifests of the referenced ConfigMaps (manifestsConfigMapRefs wins over the deprecated manifestsConfigMapRef). */
export function manifestConfigMapNames(aci: KubeObject): string[] {
  const refs = aci.spec?.manifestsConfigMapRefs;
  if (Array.isArray(refs) && refs.length > 0) return refs.map((ref: any) => String(ref?.name ?? '')).filter(Boolean);
  const single = aci.spec?.manifestsConfigMapRef?.name;
  return single ? [String(single)] : [];
}

const MANIFEST_NAME = /^[A-Za-z0-9._-]+\.(ya?ml|json)$/;

/** ConfigMap data → manifests to upload to the openshift folder; throws SpecProblem for a bad file name or duplicate. */
export function manifestsFromConfigMaps(configMaps: { name: string; data: Record<string, string> }[]): { fileName: string; content: string }[] {
  const seen = new Map<string, string>();
  const manifests: { fileName: string; content: string }[] = [];
  for (const configMap of configMaps) {
    for (const [fileName, content] of Object.entries(configMap.data).sort(([a], [b]) => a.localeCompare(b))) {
      if (!MANIFEST_NAME.test(fileName))
        throw new SpecProblem(`ConfigMap ${configMap.name}: key "${fileName}" is not a manifest file name (it must end in .yaml, .yml or .json)`);
      const earlier = seen.get(fileName);
      if (earlier)
        throw new SpecProblem(
          `ConfigMap ${configMap.name}: manifest "${fileName}" is also in ConfigMap ${earlier}; names must be unique across the referenced ConfigMaps`,
        );
      seen.set(fileName, configMap.name);
      manifests.push({ fileName, content });
    }
  }
  return manifests;
}

/** An NMStateConfig → one static network config entry (the nmstate YAML and the MAC to interface map). */
export function staticNetworkEntry(config: KubeObject): { network_yaml: string; mac_interface_map: { mac_address: string; logical_nic_name: string }[] } {
  const spec = config.spec ?? {};
  if (!isJsonObject(spec.config)) throw new SpecProblem(`NMStateConfig ${config.metadata.name}: spec.config must be an nmstate document`);
  const interfaces = Array.isArray(spec.interfaces) ? spec.interfaces : [];
  if (interfaces.length === 0)
    throw new SpecProblem(`NMStateConfig ${config.metadata.name}: spec.interfaces must map at least one MAC address to an interface name`);
  return {
    network_yaml: toYaml(spec.config),
    mac_interface_map: interfaces.map((item: any) => ({ mac_address: String(item?.macAddress ?? ''), logical_nic_name: String(item?.name ?? '') })),
  };
}

/** JSON is YAML: nmstate reads either, and the service parses the text as YAML. */
const toYaml = (value: unknown) => JSON.stringify(value);

export function labelsMatch(selector: unknown, labels: Record<string, string> | undefined): boolean {
  if (!isJsonObject(selector)) return false;
  const matchLabels = isJsonObject(selector.matchLabels) ? Object.entries(selector.matchLabels) : [];
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  if (matchLabels.length === 0 && expressions.length === 0) return false;
  const have = labels ?? {};
  if (!matchLabels.every(([key, value]) => have[key] === String(value))) return false;
  return expressions.every((expression: any) => {
    const value = have[expression?.key];
    const values: string[] = Array.isArray(expression?.values) ? expression.values.map(String) : [];
    switch (expression?.operator) {
      case 'In':
        return value !== undefined && values.includes(value);
      case 'NotIn':
        return value === undefined || !values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
}

export type InfraEnvParams = Omit<InfraEnvCreateParams, 'cluster_id'>;

/** An InfraEnv (+ its pull secret and selected NMStateConfigs, sorted by name) → infra-env-create-params; throws SpecProblem. */
export function infraEnvParams(
  infraEnv: KubeObject,
  pullSecret: string,
  nmStateConfigs: KubeObject[],
  cluster?: { openshiftVersion?: string; cpuArchitecture?: string },
): InfraEnvParams {
  const spec = infraEnv.spec ?? {};
  const name = `InfraEnv ${infraEnv.metadata.name}`;
  if (spec.ignitionConfigOverride) {
    try {
      if (!isJsonObject(JSON.parse(spec.ignitionConfigOverride))) throw new Error('not an object');
    } catch (error) {
      throw new SpecProblem(`${name}: spec.ignitionConfigOverride must be a JSON Ignition config (${(error as Error).message})`);
    }
  }
  const proxy = spec.proxy ?? {};
  const kernelArguments = Array.isArray(spec.kernelArguments) ? spec.kernelArguments : [];
  const staticNetwork = [...nmStateConfigs].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map(staticNetworkEntry);
  const ntp = Array.isArray(spec.additionalNTPSources) ? (spec.additionalNTPSources as string[]) : [];
  return {
    name: infraEnv.metadata.name,
    pull_secret: pullSecret,
    ...(spec.sshAuthorizedKey ? { ssh_authorized_key: spec.sshAuthorizedKey } : {}),
    ...(proxy.httpProxy || proxy.httpsProxy || proxy.noProxy
      ? {
          proxy: {
            ...(proxy.httpProxy ? { http_proxy: proxy.httpProxy } : {}),
            ...(proxy.httpsProxy ? { https_proxy: proxy.httpsProxy } : {}),
            ...(proxy.noProxy ? { no_proxy: proxy.noProxy } : {}),
          },
        }
      : {}),
    ...(ntp.length ? { additional_ntp_sources: ntp.join(',') } : {}),
    ...(spec.ignitionConfigOverride ? { ignition_config_override: spec.ignitionConfigOverride } : {}),
    ...((spec.cpuArchitecture ?? cluster?.cpuArchitecture)
      ? { cpu_architecture: (spec.cpuArchitecture ?? cluster?.cpuArchitecture) as InfraEnvCreateParams['cpu_architecture'] }
      : {}),
    ...(spec.osImageVersion ? { openshift_version: spec.osImageVersion } : cluster?.openshiftVersion ? { openshift_version: cluster.openshiftVersion } : {}),
    ...(spec.additionalTrustBundle ? { additional_trust_bundle: spec.additionalTrustBundle } : {}),
    ...(kernelArguments.length ? { kernel_arguments: kernelArguments.map((item: any) => ({ operation: item.operation, value: item.value })) } : {}),
    ...(spec.imageType ? { image_type: spec.imageType } : {}),
    ...(staticNetwork.length ? { static_network_config: staticNetwork } : {}),
  };
}

/** The PATCH that brings a registered infra-env to the InfraEnv's spec; empty when nothing differs. */
export function infraEnvUpdate(existing: InfraEnv, want: InfraEnvParams): InfraEnvUpdateParams {
  const update: InfraEnvUpdateParams = {};
  if ((existing.ssh_authorized_key ?? '') !== (want.ssh_authorized_key ?? '')) update.ssh_authorized_key = want.ssh_authorized_key ?? '';
  if ((existing.additional_ntp_sources ?? '') !== (want.additional_ntp_sources ?? '') && want.additional_ntp_sources !== undefined)
    update.additional_ntp_sources = want.additional_ntp_sources;
  if ((existing.ignition_config_override ?? '') !== (want.ignition_config_override ?? ''))
    update.ignition_config_override = want.ignition_config_override ?? '';
  if ((existing.additional_trust_bundle ?? '') !== (want.additional_trust_bundle ?? '')) update.additional_trust_bundle = want.additional_trust_bundle ?? '';
  if (!isDeepStrictEqual(existing.kernel_arguments ?? [], want.kernel_arguments ?? [])) update.kernel_arguments = want.kernel_arguments ?? [];
  const have = existing.proxy ?? {};
  const wantProxy = want.proxy ?? {};
  if ((['http_proxy', 'https_proxy', 'no_proxy'] as const).some((key) => (have[key] || undefined) !== (wantProxy[key] || undefined)))
    update.proxy = { http_proxy: wantProxy.http_proxy ?? '', https_proxy: wantProxy.https_proxy ?? '', no_proxy: wantProxy.no_proxy ?? '' };
  const wantNetwork = (want.static_network_config ?? []).map((entry) => ({ ...entry }));
  if (!isDeepStrictEqual(normaliseStatic(storedStaticNetworkConfig(existing.static_network_config)), normaliseStatic(wantNetwork)))
    update.static_network_config = want.static_network_config ?? [];
  if (want.image_type && existing.type !== want.image_type) update.image_type = want.image_type;
  return update;
}

/** Stored entries may carry the YAML re-rendered; compare its parsed form, not the text. */
function normaliseStatic(entries: unknown): unknown {
  if (!Array.isArray(entries)) return entries;
  return entries.map((entry: any) => {
    let network: unknown = entry?.network_yaml;
    try {
      network = JSON.parse(String(entry?.network_yaml));
    } catch {
      // Not JSON: compare the text as stored.
    }
    return { network, macs: (entry?.mac_interface_map ?? []).map((m: any) => `${String(m.mac_address).toLowerCase()}=${m.logical_nic_name}`).sort() };
  });
}

/** The Agent's host fields the service should have, as host-update-params, for what differs. */
export function hostUpdate(agent: KubeObject, host: Host): Record<string, unknown> {
  const spec = agent.spec ?? {};
  const update: Record<string, unknown> = {};
  if (spec.hostname && spec.hostname !== (host.requested_hostname ?? '')) update.host_name = spec.hostname;
  if (spec.role && spec.role !== host.suggested_role && spec.role !== host.role) update.host_role = spec.role;
  else if (spec.role && host.role === 'auto-assign' && spec.role !== 'auto-assign') update.host_role = spec.role;
  const disk = spec.installation_disk_id || diskIdForPath(host, spec.installation_disk_path);
  if (disk && disk !== host.installation_disk_id) update.disks_selected_config = [{ id: disk, role: 'install' }];
  if (spec.machineConfigPool && spec.machineConfigPool !== (host.machine_config_pool_name ?? '')) update.machine_config_pool_name = spec.machineConfigPool;
  if (spec.nodeLabels && isJsonObject(spec.nodeLabels)) {
    const want = Object.entries(spec.nodeLabels)
      .map(([key, value]) => ({ key, value: String(value) }))
      .sort((a, b) => a.key.localeCompare(b.key));
    let have: { key: string; value: string }[] = [];
    try {
      have = (JSON.parse(host.node_labels ?? '[]') as { key: string; value: string }[]).sort((a, b) => a.key.localeCompare(b.key));
    } catch {
      have = [];
    }
    if (!isDeepStrictEqual(have, want)) update.node_labels = want;
  }
  return update;
}

function diskIdForPath(host: Host, path: string | undefined): string | undefined {
  if (!path) return undefined;
  const disks = parseInventory(host)?.disks ?? [];
  const disk = disks.find((d: any) => d.by_path === path || d.by_id === path || d.path === path);
  return disk?.id ?? undefined;
}

export function parseInventory(host: Pick<Host, 'inventory'>): Record<string, any> | undefined {
  if (!host.inventory) return undefined;
  try {
    const parsed: unknown = JSON.parse(host.inventory);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const stripEmpty = <T extends Record<string, unknown>>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null && v !== '')) as T;
const int = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : undefined);

/** A host's inventory in the Agent's status shape (upstream's HostInventory fields, camelCase). */
export function agentInventory(host: Pick<Host, 'inventory'>): Record<string, unknown> | undefined {
  const inventory = parseInventory(host);
  if (!inventory) return undefined;
  const cpu = inventory.cpu ?? {};
  const memory = inventory.memory ?? {};
  const boot = inventory.boot ?? {};
  const vendor = inventory.system_vendor ?? {};
  return stripEmpty({
    hostname: text(inventory.hostname),
    bmcAddress: text(inventory.bmc_address),
    bmcV6Address: text(inventory.bmc_v6address),
    memory: stripEmpty({ physicalBytes: int(memory.physical_bytes), usableBytes: int(memory.usable_bytes) }),
    cpu: stripEmpty({
      count: int(cpu.count),
      clockMegahertz: int(cpu.frequency),
      flags: Array.isArray(cpu.flags) ? cpu.flags.map(String) : undefined,
      modelName: text(cpu.model_name),
      architecture: text(cpu.architecture),
    }),
    interfaces: (Array.isArray(inventory.interfaces) ? inventory.interfaces : []).map((nic: any) =>
      stripEmpty({
        ipV6Addresses: Array.isArray(nic.ipv6_addresses) ? nic.ipv6_addresses.map(String) : [],
        ipV4Addresses: Array.isArray(nic.ipv4_addresses) ? nic.ipv4_addresses.map(String) : [],
        flags: Array.isArray(nic.flags) ? nic.flags.map(String) : [],
        vendor: text(nic.vendor),
        name: text(nic.name),
        hasCarrier: typeof nic.has_carrier === 'boolean' ? nic.has_carrier : undefined,
        product: text(nic.product),
        mtu: int(nic.mtu),
        biosDevName: text(nic.biosdevname),
        clientID: text(nic.client_id),
        macAddress: text(nic.mac_address),
        speedMbps: int(nic.speed_mbps),
      }),
    ),
    disks: (Array.isArray(inventory.disks) ? inventory.disks : []).map((disk: any) =>
      stripEmpty({
        id: text(disk.id) ?? text(disk.path) ?? '',
        driveType: text(disk.drive_type),
        vendor: text(disk.vendor),
        name: text(disk.name),
        path: text(disk.path),
        hctl: text(disk.hctl),
        byPath: text(disk.by_path),
        byID: text(disk.by_id),
        model: text(disk.model),
        wwn: text(disk.wwn),
        serial: text(disk.serial),
        sizeBytes: int(disk.size_bytes),
        bootable: typeof disk.bootable === 'boolean' ? disk.bootable : undefined,
        smart: text(disk.smart),
        installationEligibility: {
          eligible: Boolean(disk.installation_eligibility?.eligible),
          notEligibleReasons: (disk.installation_eligibility?.not_eligible_reasons ?? []).map(String),
        },
      }),
    ),
    boot: stripEmpty({ currentBootMode: text(boot.current_boot_mode), pxeInterface: text(boot.pxe_interface), deviceType: text(boot.device_type) }),
    systemVendor: stripEmpty({
      serialNumber: text(vendor.serial_number),
      productName: text(vendor.product_name),
      manufacturer: text(vendor.manufacturer),
      virtual: typeof vendor.virtual === 'boolean' ? vendor.virtual : undefined,
    }),
  });
}

/** The MAC addresses a host reported, lower case. */
export function hostMacs(host: Pick<Host, 'inventory'>): string[] {
  const inventory = parseInventory(host);
  return (Array.isArray(inventory?.interfaces) ? inventory.interfaces : []).map((nic: any) => String(nic.mac_address ?? '').toLowerCase()).filter(Boolean);
}

export function validationsInfo(text: string | null | undefined): Record<string, { id: string; status: string; message: string }[]> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? (parsed as Record<string, { id: string; status: string; message: string }[]>) : undefined;
  } catch {
    return undefined;
  }
}
