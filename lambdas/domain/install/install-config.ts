/**
 * A cluster's install-config, as upstream's builder makes it: generated from the cluster and its
 * hosts, then the user's install_config_overrides decoded over it. Upstream decodes overrides
 * with Go's encoding/json into its typed model, so the merge and the refusals follow that
 * decoder: unknown keys and wrong types are refused, objects merge key by key, lists replace
 * (elements merging by index), null clears lists and optional objects, keys match
 * case-insensitively. The document carries the pull secret: never log it. Pure.
 */
import { X509Certificate } from 'node:crypto';
import { Address4, Address6 } from 'ip-address';
import YAML from 'yaml';
import { isJsonObject, textOrEmpty } from '../../../contracts/json-shapes.js';
import type { Cluster, ClusterAttributes, Host, InfraEnv } from '../core/entities.js';
import { conflict } from '../core/errors.js';
import { isBelow, majorMinor, parseBaseVersion } from '../core/ocp-version.js';
import { overlaps, parseCidr, proxyUrlWithoutCredentials } from '../../../contracts/input-checks.js';
import { hostInventory, type Inventory } from '../host/inventory.js';

// ---------------------------------------------------------------- upstream's typed model

interface StructType {
  kind: 'struct';
  fields: GoField[];
}
type GoType = { kind: 'string' | 'bool' } | { kind: 'int'; bits: 32 | 64 } | StructType | { kind: 'pointer'; to: GoType } | { kind: 'slice'; of: GoType };
interface GoField {
  name: string;
  type: GoType;
  omitEmpty: boolean;
}
type GoValue = string | number | boolean | null | GoValue[] | GoObject;
interface GoObject {
  [field: string]: GoValue;
}

const isGoObject = (value: GoValue | undefined): value is GoObject => isJsonObject(value);

const str: GoType = { kind: 'string' };
const bool: GoType = { kind: 'bool' };
const int: GoType = { kind: 'int', bits: 64 };
const int32: GoType = { kind: 'int', bits: 32 };
const slice = (of: GoType): GoType => ({ kind: 'slice', of });
const pointer = (to: GoType): GoType => ({ kind: 'pointer', to });
/** Fields named like Go JSON tags: `name` is always written, `name,omitempty` only when not empty. */
const struct = (fields: [string, GoType][]): StructType => ({
  kind: 'struct',
  fields: fields.map(([tag, type]) => ({ name: tag.split(',')[0]!, type, omitEmpty: tag.endsWith(',omitempty') })),
});

const LOAD_BALANCER = pointer(struct([['type,omitempty', str]]));
const BAREMETAL = struct([
  ['provisioningNetwork', str],
  ['apiVIPs,omitempty', slice(str)],
  ['apiVIP,omitempty', str],
  ['ingressVIPs,omitempty', slice(str)],
  ['ingressVIP,omitempty', str],
  [
    'hosts',
    slice(
      struct([
        ['name', str],
        ['role', str],
        ['bootMACAddress', str],
        ['bootMode', str],
        [
          'bmc',
          struct([
            ['username', str],
            ['password', str],
            ['address', str],
            ['disableCertificateVerification', bool],
          ]),
        ],
        ['hardwareProfile', str],
      ]),
    ),
  ],
  ['clusterOSImage,omitempty', str],
  ['clusterProvisioningIP,omitempty', str],
  ['provisioningNetworkInterface,omitempty', str],
  ['provisioningNetworkCIDR,omitempty', pointer(str)],
  ['provisioningDHCPRange,omitempty', str],
  ['additionalNTPServers,omitempty', slice(str)],
  ['loadBalancer,omitempty', LOAD_BALANCER],
]);
const VSPHERE = struct([
  ['vCenter,omitempty', str],
  ['username,omitempty', str],
  ['password,omitempty', str],
  ['datacenter,omitempty', str],
  ['defaultDatastore,omitempty', str],
  ['folder,omitempty', str],
  ['network,omitempty', str],
  ['cluster,omitempty', str],
  ['apiVIP,omitempty', str],
  ['ingressVIP,omitempty', str],
  ['ingressVIPs,omitempty', slice(str)],
  ['apiVIPs,omitempty', slice(str)],
  [
    'failureDomains,omitempty',
    slice(
      struct([
        ['name', str],
        ['region', str],
        ['server', str],
        [
          'topology',
          struct([
            ['computeCluster', str],
            ['datacenter', str],
            ['datastore', str],
            ['folder,omitempty', str],
            ['networks,omitempty', slice(str)],
            ['resourcePool,omitempty', str],
          ]),
        ],
        ['zone', str],
      ]),
    ),
  ],
  [
    'vcenters,omitempty',
    slice(
      struct([
        ['datacenters', slice(str)],
        ['password', str],
        ['port,omitempty', int32],
        ['server', str],
        ['user', str],
      ]),
    ),
  ],
  ['loadBalancer,omitempty', LOAD_BALANCER],
]);
const NUTANIX_ENDPOINT = struct([
  ['address', str],
  ['port', int32],
]);
const NUTANIX = struct([
  ['apiVIPs,omitempty', slice(str)],
  ['apiVIP,omitempty', str],
  ['ingressVIPs,omitempty', slice(str)],
  ['ingressVIP,omitempty', str],
  [
    'prismCentral',
    struct([
      ['endpoint', NUTANIX_ENDPOINT],
      ['username', str],
      ['password', str],
    ]),
  ],
  [
    'prismElements',
    slice(
      struct([
        ['endpoint', NUTANIX_ENDPOINT],
        ['uuid', str],
        ['name', str],
      ]),
    ),
  ],
  ['subnetUUIDs', slice(str)],
]);
// Upstream tags this one for YAML only, so its JSON keys are the Go field names.
const EXTERNAL = struct([
  ['PlatformName', str],
  ['CloudControllerManager', str],
]);
const MACHINE_POOL = struct([
  ['hyperthreading,omitempty', str],
  ['name', str],
  ['replicas', int],
]);
const FENCING = struct([
  [
    'credentials,omitempty',
    slice(
      struct([
        ['hostname,omitempty', str],
        ['macAddress,omitempty', str],
        ['address', str],
        ['username', str],
        ['password', str],
        ['certificateVerification,omitempty', pointer(str)],
      ]),
    ),
  ],
]);
const INSTALL_CONFIG = struct([
  ['apiVersion', str],
  ['baseDomain', str],
  [
    'proxy,omitempty',
    pointer(
      struct([
        ['httpProxy,omitempty', str],
        ['httpsProxy,omitempty', str],
        ['noProxy,omitempty', str],
      ]),
    ),
  ],
  [
    'networking',
    struct([
      ['networkType', str],
      [
        'clusterNetwork',
        slice(
          struct([
            ['cidr', str],
            ['hostPrefix', int],
          ]),
        ),
      ],
      ['machineNetwork,omitempty', slice(struct([['cidr', str]]))],
      ['serviceNetwork', slice(str)],
    ]),
  ],
  ['metadata', struct([['name', str]])],
  ['compute', slice(MACHINE_POOL)],
  [
    'controlPlane',
    struct([
      ['hyperthreading,omitempty', str],
      ['name', str],
      ['replicas', int],
      ['fencing,omitempty', pointer(FENCING)],
    ]),
  ],
  ['arbiter,omitempty', pointer(MACHINE_POOL)],
  [
    'platform',
    struct([
      ['baremetal,omitempty', pointer(BAREMETAL)],
      ['none,omitempty', pointer(struct([]))],
      ['vsphere,omitempty', pointer(VSPHERE)],
      ['nutanix,omitempty', pointer(NUTANIX)],
      ['external,omitempty', pointer(EXTERNAL)],
    ]),
  ],
  ['bootstrapInPlace,omitempty', pointer(struct([['installationDisk,omitempty', str]]))],
  ['fips', bool],
  ['cpuPartitioningMode,omitempty', str],
  ['pullSecret', str],
  ['sshKey', str],
  ['additionalTrustBundle,omitempty', str],
  ['additionalTrustBundlePolicy,omitempty', str],
  [
    'imageContentSources,omitempty',
    slice(
      struct([
        ['mirrors', slice(str)],
        ['source', str],
      ]),
    ),
  ],
  [
    'imageDigestSources,omitempty',
    slice(
      struct([
        ['source', str],
        ['mirrors,omitempty', slice(str)],
      ]),
    ),
  ],
  [
    'capabilities,omitempty',
    pointer(
      struct([
        ['baselineCapabilitySet,omitempty', str],
        ['additionalEnabledCapabilities,omitempty', slice(str)],
      ]),
    ),
  ],
  ['featureSet,omitempty', str],
  ['featureGates,omitempty', slice(str)],
  ['osImageStream,omitempty', str],
]);

function zero(type: GoType): GoValue {
  if (type.kind === 'string') return '';
  if (type.kind === 'bool') return false;
  if (type.kind === 'int') return 0;
  if (type.kind === 'struct') return zeroStruct(type);
  return null;
}

const zeroStruct = (type: StructType): GoObject => Object.fromEntries(type.fields.map((f) => [f.name, zero(f.type)]));

class OverrideError extends Error {}

const MAX_KEY_SHOWN = 60;
const jsonKind = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
/** Where in the document; keys are the caller's own text, values are never shown (they may be secrets). */
const at = (path: string) => (path === '' ? 'the overrides' : `"${path.length > MAX_KEY_SHOWN ? `${path.slice(0, MAX_KEY_SHOWN)}…` : path}"`);

/** Go's encoding/json decoding `input` into `current` of `type`, with unknown fields disallowed. */
function decode(type: GoType, current: GoValue, input: unknown, path: string): GoValue {
  if (input === null) return type.kind === 'pointer' || type.kind === 'slice' ? null : current;
  const refuse = (expected: string) => new OverrideError(`${at(path)} must be ${expected}, not ${jsonKind(input)}`);
  switch (type.kind) {
    case 'string':
      if (typeof input !== 'string') throw refuse('a string');
      return input;
    case 'bool':
      if (typeof input !== 'boolean') throw refuse('a boolean');
      return input;
    case 'int': {
      const limit = type.bits === 32 ? 2 ** 31 : Number.MAX_SAFE_INTEGER;
      if (typeof input !== 'number' || !Number.isInteger(input)) throw refuse('an integer');
      if (input >= limit || input < -limit) throw new OverrideError(`${at(path)} is out of range`);
      return input;
    }
    case 'pointer':
      return decode(type.to, current ?? zero(type.to), input, path);
    case 'slice': {
      if (!Array.isArray(input)) throw refuse('a list');
      // Go decodes each element into the element already at that index, so objects merge by index.
      const existing = Array.isArray(current) ? current : [];
      return input.map((item, i) => decode(type.of, i < existing.length ? existing[i]! : zero(type.of), item, `${path}[${i}]`));
    }
    case 'struct':
      return decodeStruct(type, isGoObject(current) ? current : {}, input, path);
  }
}

/** `decode` of a struct: a null input leaves it as it is. */
function decodeStruct(type: StructType, current: GoObject, input: unknown, path: string): GoObject {
  if (input === null) return current;
  if (typeof input !== 'object' || Array.isArray(input)) throw new OverrideError(`${at(path)} must be an object, not ${jsonKind(input)}`);
  const out = { ...current };
  for (const [key, value] of Object.entries(input)) {
    const field = type.fields.find((f) => f.name === key) ?? type.fields.find((f) => f.name.toLowerCase() === key.toLowerCase());
    const where = path === '' ? key : `${path}.${key}`;
    if (!field) throw new OverrideError(`${at(where)} is not an install-config field assisted installation supports`);
    if (value !== undefined) out[field.name] = decode(field.type, out[field.name] ?? zero(field.type), value, where);
  }
  return out;
}

const isEmpty = (type: GoType, value: GoValue) =>
  type.kind !== 'struct' && (value === '' || value === 0 || value === false || value === null || (Array.isArray(value) && value.length === 0));

/** Go's encoding/json output shape: fields in declaration order, empty `omitempty` fields left out. */
function encode(type: GoType, value: GoValue): unknown {
  if (value === null) return null;
  if (type.kind === 'pointer') return encode(type.to, value);
  if (type.kind === 'slice' && Array.isArray(value)) return value.map((item) => encode(type.of, item));
  if (type.kind !== 'struct' || !isGoObject(value)) return value;
  return encodeStruct(type, value);
}

function encodeStruct(type: StructType, value: GoObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fields) {
    const fieldValue = value[field.name] ?? zero(field.type);
    if (!(field.omitEmpty && isEmpty(field.type, fieldValue))) out[field.name] = encode(field.type, fieldValue);
  }
  return out;
}

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

/** Upstream's check of an override's trust bundle: every PEM block must be an X.509 certificate. */
function trustBundleProblem(bundle: string): string | undefined {
  const blocks = bundle.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) ?? [];
  if (blocks.length === 0) return 'additionalTrustBundle holds no PEM block';
  const rest = blocks.reduce((remaining, block) => remaining.replace(block, ''), bundle);
  if (rest.trim() !== '') return 'additionalTrustBundle holds text outside its PEM blocks';
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `additionalTrustBundle: PEM block ${index + 1} is not a valid X.509 certificate`;
    }
  }
  return undefined;
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
    const problem = bundle ? trustBundleProblem(bundle) : undefined;
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

/** The document as upstream serialises it (Go's encoding/json, HTML-safe escapes): the GET body. */
/** What stands for the pull secret in an install config shown to a caller who has no need of it. */
export const REDACTED_PULL_SECRET = '<redacted: only the cluster owner may read the pull secret>';

/** The install config without its pull secret. */
export const withoutPullSecret = (config: InstallConfig): InstallConfig => ({ ...config, pullSecret: REDACTED_PULL_SECRET });

/** The install config without the user and password of its proxies, for callers who may not see credentials. */
export function withoutProxyCredentials(config: InstallConfig): InstallConfig {
  if (!isJsonObject(config.proxy)) return config;
  const proxy: Record<string, unknown> = { ...config.proxy };
  for (const field of ['httpProxy', 'httpsProxy']) {
    const value = proxy[field];
    if (typeof value === 'string') proxy[field] = proxyUrlWithoutCredentials(value);
  }
  return { ...config, proxy };
}

/**
 * install-config.yaml as stored, with its pull secret replaced (the rest as written), and, for a
 * caller who may not see credentials, its proxies' user and password too.
 */
export function installConfigYamlWithoutPullSecret(text: string, options: { proxyCredentials: boolean } = { proxyCredentials: true }): string {
  const document = YAML.parseDocument(text);
  if (document.has('pullSecret')) document.set('pullSecret', REDACTED_PULL_SECRET);
  if (!options.proxyCredentials) {
    for (const field of ['httpProxy', 'httpsProxy']) {
      const value: unknown = document.getIn(['proxy', field]);
      if (typeof value === 'string') document.setIn(['proxy', field], proxyUrlWithoutCredentials(value));
    }
  }
  return document.toString({ lineWidth: 0 });
}

export function installConfigJson(config: InstallConfig): string {
  return JSON.stringify(config).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The document as install-config.yaml, for the installer; long lines (keys, secrets) stay unfolded. */
export function installConfigYaml(config: InstallConfig): string {
  return YAML.stringify(config, { lineWidth: 0 });
}
