/**
 * A cluster's install-config, as upstream's builder makes it: generated from the cluster and its
 * hosts, then the user's install_config_overrides decoded over it. Upstream decodes overrides
 * with Go's encoding/json into its typed model, so the merge and the refusals follow that
 * decoder (install-config-model.ts); the document as text is install-config-text.ts. The
 * document carries the pull secret: never log it. Pure.
 */
import { Address4, Address6 } from 'ip-address';
import { textOrEmpty } from '../../../contracts/json-shapes.js';
import { isX509Certificate } from '../core/certificates.js';
import type { Cluster, ClusterAttributes, Host, InfraEnv } from '../core/entities.js';
import { conflict } from '../core/errors.js';
import { isBelow, majorMinor, parseBaseVersion } from '../core/ocp-version.js';
import { overlaps, parseCidr } from '../../../contracts/input-checks.js';
import { hostInventory, type Inventory } from '../host/inventory.js';
import { decodeStruct, encodeStruct, type GoObject, INSTALL_CONFIG, isGoObject, OverrideError, zeroStruct } from './install-config-model.js';

// ---------------------------------------------------------------- reading the cluster and hosts

export type InstallConfig = Record<string, unknown>;
export interface RegistryMirror {
  source: string;
  mirrors: string[];
}
export interface InstallConfigOptions {
  /** The infra-envs of the cluster's hosts: their NTP sources and trust bundles are used. */
  infraEnvs?: InfraEnv[];
  /** Service-wide registry mirrors (imageDigestSources, or imageContentSources before 4.14). */
  mirrors?: RegistryMirror[];
  mirrorCaBundle?: string;
  /** A CA to trust in addition (upstream adds Red Hat's root CA when configured to); the API's GET adds none. */
  extraCa?: string;
  /** Overrides to apply instead of the stored install_config_overrides (checking a PATCH). */
  overrides?: string;
}

interface Network {
  cidr: string;
  host_prefix?: number;
}

const inventoryOf = (host: Host): Inventory => hostInventory(host) ?? {};
/** The cluster's networks of one kind that have a CIDR. */
const networksOf = (networks: readonly { cidr?: string; host_prefix?: number }[] | null | undefined): Network[] =>
  (networks ?? []).filter((n): n is Network => typeof n?.cidr === 'string');

const rawRole = (host: Host) => textOrEmpty(host.attributes.role) || 'auto-assign';
const effectiveRole = (host: Host) => (rawRole(host) === 'auto-assign' && textOrEmpty(host.attributes.suggested_role)) || rawRole(host);
const hostName = (host: Host) => textOrEmpty(host.attributes.requested_hostname) || inventoryOf(host).hostname || host.hostId;
const countRole = (hosts: Host[], role: string) => hosts.filter((h) => effectiveRole(h) === role).length;
/** version < threshold; an unreadable version is treated as current (not below anything). */
const versionBelow = (version: string, threshold: string) => !!parseBaseVersion(version) && isBelow(version, threshold);
const splitList = (value: unknown) =>
  textOrEmpty(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const addressesOf = (nic: NonNullable<Inventory['interfaces']>[number]) => [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])];

/** The networks (address/prefix) the host's interface addresses sit on, in inventory order. */
function inventoryNetworks(host: Host): string[] {
  const networks = (inventoryOf(host).interfaces ?? []).flatMap(addressesOf).flatMap((address) => {
    const parsedAddress = Address4.isValid(address) ? new Address4(address) : Address6.isValid(address) ? new Address6(address) : undefined;
    return parsedAddress && address.includes('/') ? [`${parsedAddress.startAddress().correctForm()}/${address.split('/')[1]}`] : [];
  });
  return [...new Set(networks)];
}

/** User-managed networking: the cluster's machine networks, else one per family from the bootstrap host. */
function userManagedMachineNetworks(machineNetworks: Network[], hosts: Host[]): { cidr: string }[] | null {
  if (machineNetworks.length > 0) return machineNetworks.map((n) => ({ cidr: n.cidr }));
  const bootstrap = hosts.find((h) => h.attributes.bootstrap === true);
  if (!bootstrap) return null;
  const networks = inventoryNetworks(bootstrap);
  const found = [networks.find((n) => !n.includes(':')), networks.find((n) => n.includes(':'))].filter((n): n is string => !!n);
  return found.length > 0 ? found.map((cidr) => ({ cidr })) : null;
}

/** The MAC of the first NIC with an address on a machine network ("" when none does yet). */
function bootMac(host: Host, machineNetworks: Network[]): string {
  const targets = machineNetworks.map((n) => parseCidr(n.cidr)).filter((c) => !!c);
  const onMachineNetwork = (address: string) => {
    const own = parseCidr(address);
    return !!own && targets.some((target) => overlaps(own, target));
  };
  return (inventoryOf(host).interfaces ?? []).find((nic) => addressesOf(nic).some(onMachineNetwork))?.mac_address ?? '';
}

function hyperthreading(setting: unknown, group: 'masters' | 'workers' | 'arbiters'): string {
  const value = textOrEmpty(setting) || 'all';
  return value === 'all' || value.split(',').includes(group) ? 'Enabled' : 'Disabled';
}

function noProxy(attributes: ClusterAttributes, name: string): string {
  const configured = textOrEmpty(attributes.no_proxy).trim();
  if (configured === '*') return configured;
  return [
    ...configured.split(',').filter((s) => s !== ''),
    `.${name}.${textOrEmpty(attributes.base_dns_domain)}`,
    ...[attributes.cluster_networks, attributes.service_networks, attributes.machine_networks].flatMap((networks) => networksOf(networks).map((n) => n.cidr)),
  ].join(',');
}

// ---------------------------------------------------------------- generation

/** The install-config document as generated, before decodeStruct gives it Go's shape. */
interface InstallConfigDraft {
  networking: Record<string, unknown>;
  controlPlane: Record<string, unknown>;
  [field: string]: unknown;
}

function platformSection(cluster: Cluster, hosts: Host[], options: InstallConfigOptions, doc: InstallConfigDraft): void {
  const a = cluster.attributes;
  const type = textOrEmpty(a.platform?.type) || (a.user_managed_networking ? 'none' : 'baremetal');
  const machineNetworks = networksOf(a.machine_networks);
  const vips = (list: readonly { ip?: string }[] | null | undefined) => (Array.isArray(list) ? list.map((v) => v.ip) : []);
  const userManagedLoadBalancer = a.load_balancer?.type === 'user-managed' ? { type: 'UserManaged' } : undefined;
  const userManaged = () => {
    doc.networking.machineNetwork = userManagedMachineNetworks(machineNetworks, hosts);
    if (typeof a.network_type === 'string') doc.networking.networkType = a.network_type;
  };

  if (type === 'baremetal') {
    // Masters, then arbiters, then the rest, each by name (upstream sorts by the role as set).
    const rank = (h: Host) => ({ master: 0, arbiter: 1 })[rawRole(h)] ?? 2;
    const sorted = [...hosts].sort((x, y) => rank(x) - rank(y) || (hostName(x) < hostName(y) ? -1 : hostName(x) > hostName(y) ? 1 : 0));
    let ntp = splitList(a.additional_ntp_source);
    if (ntp.length === 0) ntp = [...new Set((options.infraEnvs ?? []).flatMap((i) => splitList(i.attributes.additional_ntp_sources)))];
    doc.platform = {
      baremetal: {
        provisioningNetwork: 'Disabled',
        apiVIPs: vips(a.api_vips),
        ingressVIPs: vips(a.ingress_vips),
        hosts: sorted.map((h) => {
          const boot = inventoryOf(h).boot;
          return {
            name: hostName(h),
            role: rawRole(h),
            bootMACAddress: bootMac(h, machineNetworks),
            bootMode: boot && boot.current_boot_mode !== 'uefi' ? 'legacy' : 'UEFI',
          };
        }),
        additionalNTPServers: ntp,
        loadBalancer: userManagedLoadBalancer,
      },
    };
  } else if (type === 'vsphere' || type === 'nutanix') {
    // Credentials are placeholders the user replaces after installation, as upstream does.
    const section: Record<string, unknown> = {};
    if (a.user_managed_networking) userManaged();
    else Object.assign(section, { apiVIPs: vips(a.api_vips), ingressVIPs: vips(a.ingress_vips) });
    doc.platform = { [type]: Object.assign(section, type === 'vsphere' ? vspherePlaceholders(userManagedLoadBalancer) : NUTANIX_PLACEHOLDERS) };
  } else {
    const external = a.platform?.external;
    doc.platform =
      type === 'external'
        ? { external: { PlatformName: textOrEmpty(external?.platform_name), CloudControllerManager: textOrEmpty(external?.cloud_controller_manager) } }
        : { none: {} };
    userManaged();
    if (a.control_plane_count === 1) {
      if (!doc.networking.networkType) doc.networking.networkType = 'OVNKubernetes';
      const bootstrap = hosts.find((h) => h.attributes.bootstrap === true);
      if (bootstrap)
        doc.bootstrapInPlace = {
          installationDisk: textOrEmpty(bootstrap.attributes.installation_disk_id) || textOrEmpty(bootstrap.attributes.installation_disk_path),
        };
    }
  }
}

function vspherePlaceholders(loadBalancer: { type: string } | undefined) {
  const dc = 'datacenterplaceholder';
  return {
    vcenters: [{ datacenters: [dc], password: 'passwordplaceholder', server: 'vcenterplaceholder', user: 'usernameplaceholder' }],
    failureDomains: [
      {
        name: 'assisted-generated-failure-domain',
        region: 'assisted-generated-region',
        server: 'vcenterplaceholder',
        zone: 'assisted-generated-zone',
        topology: {
          computeCluster: `/${dc}/host/clusterplaceholder`,
          datacenter: dc,
          datastore: `/${dc}/datastore/defaultdatastoreplaceholder`,
          folder: `/${dc}/vm/folderplaceholder`,
          networks: ['networkplaceholder'],
        },
      },
    ],
    loadBalancer,
  };
}
const NUTANIX_PLACEHOLDERS = {
  prismCentral: { endpoint: { address: 'prism.central.placeholder.address', port: 9440 }, username: 'username_placeholder', password: 'password_placeholder' },
  prismElements: [
    {
      endpoint: { address: 'prism.element.placeholder.address', port: 9440 },
      uuid: 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx',
      name: 'prism_endpoint_name_placeholder',
    },
  ],
  subnetUUIDs: ['yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy'],
};

/** Two control-plane nodes without an arbiter fence each other with the BMC credentials of both. */
function fencing(cluster: Cluster, hosts: Host[], doc: InstallConfigDraft): void {
  const masters = hosts.filter((h) => effectiveRole(h) === 'master');
  if (cluster.attributes.control_plane_count !== 2 || countRole(hosts, 'arbiter') > 0 || masters.length !== 2) return;
  const credentials = masters.map(fencingCredentialsOf);
  if (!credentials.every((c) => c !== undefined)) return;
  doc.controlPlane.fencing = {
    credentials: credentials.map((c, i) => ({
      ...(c.mac_address ? { macAddress: c.mac_address } : { hostname: hostName(masters[i]!) }),
      address: c.address,
      username: c.username,
      password: c.password,
      ...(c.certificate_verification ? { certificateVerification: c.certificate_verification } : {}),
    })),
  };
  // Two-node fencing is a tech preview before 4.22.
  if (versionBelow(textOrEmpty(cluster.attributes.openshift_version), '4.22')) doc.featureSet = 'TechPreviewNoUpgrade';
}

/**
 * A host's BMC credentials (the wire's fencing-credentials-params, stored in JSON text), each field
 * as text ('' when missing); undefined when there are none or they are not a JSON object.
 */
function fencingCredentialsOf(host: Host): Record<'address' | 'username' | 'password' | 'certificate_verification' | 'mac_address', string> | undefined {
  const stored = host.attributes.fencing_credentials;
  let credentials: unknown = stored;
  try {
    if (typeof stored === 'string') credentials = stored === '' ? undefined : JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (!credentials || typeof credentials !== 'object') return undefined;
  const fields = new Map<string, unknown>(Object.entries(credentials));
  return {
    address: textOrEmpty(fields.get('address')),
    username: textOrEmpty(fields.get('username')),
    password: textOrEmpty(fields.get('password')),
    certificate_verification: textOrEmpty(fields.get('certificate_verification')),
    mac_address: textOrEmpty(fields.get('mac_address')),
  };
}

/** The generated document before overrides, in upstream's typed form. */
function generate(cluster: Cluster, hosts: Host[], options: InstallConfigOptions): GoObject {
  const a = cluster.attributes;
  const version = textOrEmpty(a.openshift_version);
  const listOrNil = <T>(items: T[]) => (items.length > 0 ? items : null);
  const networkType = textOrEmpty(a.network_type) || 'OVNKubernetes';
  const doc: InstallConfigDraft = {
    apiVersion: 'v1',
    baseDomain: textOrEmpty(a.base_dns_domain),
    networking: {
      // With network type None the user brings the CNI, so the installer is told none.
      networkType: networkType === 'None' ? '' : networkType,
      clusterNetwork: listOrNil(networksOf(a.cluster_networks).map((n) => ({ cidr: n.cidr, hostPrefix: n.host_prefix ?? 0 }))),
      machineNetwork: networksOf(a.machine_networks).map((n) => ({ cidr: n.cidr })),
      serviceNetwork: listOrNil(networksOf(a.service_networks).map((n) => n.cidr)),
    },
    metadata: { name: cluster.name },
    compute: [{ hyperthreading: hyperthreading(a.hyperthreading, 'workers'), name: 'worker', replicas: countRole(hosts, 'worker') }],
    controlPlane: { hyperthreading: hyperthreading(a.hyperthreading, 'masters'), name: 'master', replicas: countRole(hosts, 'master') },
    pullSecret: cluster.pullSecret ?? '',
    sshKey: textOrEmpty(a.ssh_public_key),
  };
  if (textOrEmpty(a.http_proxy) || textOrEmpty(a.https_proxy)) {
    doc.proxy = { httpProxy: textOrEmpty(a.http_proxy), httpsProxy: textOrEmpty(a.https_proxy), noProxy: noProxy(a, cluster.name) };
  }
  const mirrors = options.mirrors ?? [];
  if (mirrors.length > 0) {
    if (versionBelow(version, '4.14')) doc.imageContentSources = mirrors.map((m) => ({ mirrors: m.mirrors, source: m.source }));
    else doc.imageDigestSources = mirrors.map((m) => ({ source: m.source, mirrors: m.mirrors }));
  }
  if (countRole(hosts, 'arbiter') > 0) {
    doc.arbiter = { hyperthreading: hyperthreading(a.hyperthreading, 'arbiters'), name: 'arbiter', replicas: countRole(hosts, 'arbiter') };
    // Arbiter clusters are a tech preview in 4.19.
    if (majorMinor(version) === '4.19') doc.featureSet = 'TechPreviewNoUpgrade';
  }
  fencing(cluster, hosts, doc);
  platformSection(cluster, hosts, options, doc);
  return decodeStruct(INSTALL_CONFIG, zeroStruct(INSTALL_CONFIG), doc, '');
}

/** Decodes overrides text over the document; throws OverrideError for anything upstream refuses. */
function applyOverrides(base: GoObject, overrides: string): GoObject {
  if (overrides === '') return base;
  let input: unknown;
  try {
    input = JSON.parse(overrides);
  } catch {
    throw new OverrideError('the overrides are not valid JSON: send a JSON object as a string, such as "{\\"fips\\":true}"');
  }
  return decodeStruct(INSTALL_CONFIG, base, input, '');
}

/**
 * Upstream's check of an override's trust bundle: only PEM blocks, of any type, each an X.509
 * certificate (the infra-env's additional_trust_bundle has its own, image/infra-env.ts).
 */
function overrideTrustBundleProblem(bundle: string): string | undefined {
  const blocks = bundle.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) ?? [];
  if (blocks.length === 0) return 'additionalTrustBundle holds no PEM block';
  const rest = blocks.reduce((remaining, block) => remaining.replace(block, ''), bundle);
  if (rest.trim() !== '') return 'additionalTrustBundle holds text outside its PEM blocks';
  const invalid = blocks.findIndex((block) => !isX509Certificate(block));
  return invalid === -1 ? undefined : `additionalTrustBundle: PEM block ${invalid + 1} is not a valid X.509 certificate`;
}

/** The overrides live in the cluster record, whose store caps a record's size (DynamoDB: 400 KB). */
const MAX_OVERRIDES_LENGTH = 128 * 1024;

/**
 * The reason a PATCH of install_config_overrides is refused, or undefined to accept it ("" clears
 * the overrides and is always accepted).
 */
export function installConfigOverridesProblem(cluster: Cluster, hosts: Host[], overrides: string, options: InstallConfigOptions = {}): string | undefined {
  if (overrides.length > MAX_OVERRIDES_LENGTH) return `install config overrides are longer than ${MAX_OVERRIDES_LENGTH} characters`;
  try {
    const merged = applyOverrides(generate(cluster, hosts, options), overrides);
    const bundle = textOrEmpty(merged.additionalTrustBundle);
    const problem = bundle ? overrideTrustBundleProblem(bundle) : undefined;
    return problem ? `install config overrides: ${problem}` : undefined;
  } catch (error) {
    if (error instanceof OverrideError) return `install config overrides: ${error.message}`;
    throw error;
  }
}

/**
 * The install-config for the cluster as it stands: generated, the stored overrides applied,
 * then every trust bundle merged (the overrides' own first, then the extra CA, the mirror CA and
 * the infra-envs' bundles). Returns the document in upstream's JSON shape.
 */
export function renderInstallConfig(cluster: Cluster, hosts: Host[], options: InstallConfigOptions = {}): InstallConfig {
  let merged: GoObject;
  try {
    merged = applyOverrides(generate(cluster, hosts, options), options.overrides ?? textOrEmpty(cluster.attributes.install_config_overrides));
  } catch (error) {
    if (error instanceof OverrideError) throw conflict(`The cluster's install config overrides no longer apply (${error.message}); update or clear them`);
    throw error;
  }
  const bundles = [
    textOrEmpty(merged.additionalTrustBundle),
    options.extraCa ?? '',
    options.mirrorCaBundle ?? '',
    ...(options.infraEnvs ?? []).map((i) => textOrEmpty(i.attributes.additional_trust_bundle)),
  ].filter((b) => b !== '');
  const bundle = bundles.join('\n').trim();
  if (bundle) merged = { ...merged, additionalTrustBundle: bundle };
  return encodeStruct(INSTALL_CONFIG, merged);
}

/**
 * Whether the console operator is installed (and so monitored): from 4.12 the overrides can drop
 * it with baselineCapabilitySet "None" unless "Console" is enabled again. Unreadable overrides
 * leave it on.
 */
export function consoleEnabled(openshiftVersion: string, overrides: string): boolean {
  if (overrides === '' || versionBelow(openshiftVersion, '4.12')) return true;
  try {
    const { capabilities } = decodeStruct(INSTALL_CONFIG, zeroStruct(INSTALL_CONFIG), JSON.parse(overrides), '');
    if (!isGoObject(capabilities) || capabilities.baselineCapabilitySet !== 'None') return true;
    const enabled = capabilities.additionalEnabledCapabilities;
    return Array.isArray(enabled) && enabled.includes('Console');
  } catch {
    return true;
  }
}
