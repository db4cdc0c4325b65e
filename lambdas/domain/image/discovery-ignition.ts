/**
 * The discovery ignition: the Ignition config a discovery image boots with. It starts the agent
 * (which registers the host with this service), hands the host the infra-env's pull secret, SSH
 * key, proxy, trust bundle, NTP sources and static network files, and then applies the user's
 * `ignition_config_override`. The shape follows upstream's discovery template (spec 3.1.0, the
 * same units and file paths) so hosts behave as they do under assisted-service.
 * Pure: the caller passes the agent token, image and service URL.
 */
import type { InfraEnv, InfraEnvAttributes } from '../core/entities.js';
import { badRequest } from '../core/errors.js';
import { mergeIgnitionOverride } from './ignition-merge.js';
import {
  isStaticNetworkEntry,
  PRE_NETWORK_SCRIPT_PATH,
  StaticNetworkError,
  staticNetworkConfigProblem,
  staticNetworkFiles,
  type StaticNetworkEntry,
} from './static-network/static-network.js';

export const DISCOVERY_IGNITION_VERSION = '3.1.0';
export const PULL_SECRET_PATH = '/root/.docker/config.json';
export const TRUST_BUNDLE_PATH = '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem';
const FIX_IMAGE_STORE_SCRIPT = '/usr/local/bin/agent-fix-bz1964591';
const PULL_IMAGE_SCRIPT = '/usr/local/bin/agent-pull-image';
const NTP_SCRIPT = '/usr/local/bin/add-ntp-sources.sh';
/** Upstream's AGENT_TIMEOUT_START default: pulling the agent image may be slow. */
const AGENT_START_TIMEOUT_SECONDS = 600;

export type DiscoveryIsoType = 'full-iso' | 'minimal-iso' | 'disconnected-iso';

export interface DiscoveryIgnitionInput {
  infraEnv: Pick<InfraEnv, 'infraEnvId' | 'pullSecret' | 'attributes'>;
  /** The API base URL agents reach (the service's public URL). */
  serviceBaseUrl: string;
  /** The agent container image; its reference doubles as the agent version. */
  agentImage: string;
  /** The agent's credential, which it sends back in X-Secret-Key. */
  agentToken: string;
  /** `discovery_iso_type` of the request, overriding the infra-env's type. */
  isoType?: DiscoveryIsoType;
  /** Upstream's SKIP_CERT_VERIFICATION: whether the agent skips TLS verification of the service. */
  skipCertVerification?: boolean;
  /**
   * The service's mirror registries (upstream's mirror-registry ConfigMap): a containers
   * registries.conf and the CA that signs the mirrors, so disconnected hosts pull from them.
   */
  mirrorRegistries?: { registriesConf: string; caBundle?: string };
}

/** Where upstream's discovery image puts the mirror settings. */
export const REGISTRIES_CONF_PATH = '/etc/containers/registries.conf';
export const MIRROR_CA_PATH = '/etc/pki/ca-trust/source/anchors/domain.crt';

export interface IgnitionFile {
  path: string;
  mode: number;
  overwrite?: boolean;
  user: { name: string };
  contents: { source: string };
}

export interface IgnitionUnit {
  name: string;
  enabled: boolean;
  contents?: string;
}

export interface IgnitionConfig {
  ignition: { version: string; proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string[] } };
  passwd: { users: { name: string; passwordHash: string; sshAuthorizedKeys: string[]; groups: string[] }[] };
  systemd: { units: IgnitionUnit[] };
  storage: { files: IgnitionFile[] };
  [key: string]: unknown;
}

export const dataUrl = (text: string): string => `data:text/plain;charset=utf-8;base64,${Buffer.from(text).toString('base64')}`;

/** A root-owned file of an Ignition config, its contents inline. */
export function ignitionFile(path: string, mode: number, text: string): IgnitionFile {
  return { path, mode, overwrite: true, user: { name: 'root' }, contents: { source: dataUrl(text) } };
}

export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/** The infra-env's proxy settings, trimmed; no_proxy as one list without blanks. */
export function proxyOf(attributes: InfraEnvAttributes): ProxySettings {
  const proxy = attributes.proxy ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  // One list without blanks: a space would split a systemd Environment= assignment.
  const noProxy = text(proxy.no_proxy)
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .join(',');
  return { httpProxy: text(proxy.http_proxy), httpsProxy: text(proxy.https_proxy), noProxy };
}

/** systemd expands `%` specifiers in unit files; a literal one is written `%%`. */
export const systemdLiteral = (value: string): string => value.replace(/%/g, '%%');

function agentUnit(input: DiscoveryIgnitionInput, proxy: ProxySettings): string {
  const image = input.agentImage;
  const environment = [
    ['HTTP_PROXY', proxy.httpProxy],
    ['http_proxy', proxy.httpProxy],
    ['HTTPS_PROXY', proxy.httpsProxy],
    ['https_proxy', proxy.httpsProxy],
    ['NO_PROXY', proxy.noProxy],
    ['no_proxy', proxy.noProxy],
    ['PULL_SECRET_TOKEN', input.agentToken],
  ].map(([name, value]) => `Environment=${name}=${systemdLiteral(value!)}`);
  const agentArgs = [
    `--url ${systemdLiteral(input.serviceBaseUrl)}`,
    `--infra-env-id ${input.infraEnv.infraEnvId}`,
    `--agent-version ${image}`,
    `--insecure=${input.skipCertVerification === true}`,
  ];
  return [
    '[Unit]',
    'Description=Assisted Installer discovery agent',
    'Wants=network-online.target',
    'After=network-online.target',
    // The agent must keep retrying for as long as the host waits to be installed.
    'StartLimitIntervalSec=0',
    '',
    '[Service]',
    'Type=simple',
    'Restart=always',
    'RestartSec=3',
    ...environment,
    `TimeoutStartSec=${AGENT_START_TIMEOUT_SECONDS}`,
    `ExecStartPre=${FIX_IMAGE_STORE_SCRIPT} ${image}`,
    `ExecStartPre=${PULL_IMAGE_SCRIPT} ${image}`,
    // The agent binary runs on the host, copied out of its image.
    `ExecStartPre=podman run --pull=never --privileged --rm -v /usr/local/bin:/hostbin ${image} cp /usr/bin/agent /hostbin`,
    `ExecStart=/usr/local/bin/agent ${agentArgs.join(' ')}`,
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

const FIX_IMAGE_STORE = `#!/usr/bin/sh
# Bugzilla 1964591: a corrupted entry in podman's image store makes every use of the image fail.
# If podman cannot list the image, remove it so the pull that follows fetches it afresh.
image_name=$(echo "$1" | sed 's/[@:].*//')
podman images | grep -q "$image_name" || podman rmi --force "$1" || true
`;

const PULL_IMAGE = `#!/usr/bin/sh
# Pulls the agent image, retrying with a doubling delay (at most five minutes) until it succeeds:
# the registry or the proxy may not be reachable yet when the host boots.
image="$1"
podman image exists "$image" && exit 0
delay=5
until podman pull "$image"; do
  echo "Pulling $image failed; retrying in \${delay}s"
  sleep "$delay"
  delay=$((delay * 2))
  [ "$delay" -gt 300 ] && delay=300
done
exit 0
`;

const MOTD = `
This host runs the OpenShift Assisted Installer discovery image. When a cluster installs on it,
its disk is written from scratch.

The agent runs as agent.service:   sudo journalctl -u agent.service
The agent's own log:                sudo journalctl TAG=agent
`;

/** Lets chronyd reach the agent's containerised NTP checks (as upstream's assisted.te). */
const SELINUX_POLICY = `module assisted 1.0;

require {
  type chronyd_t;
  type container_file_t;
  type spc_t;
  class unix_dgram_socket sendto;
  class dir search;
  class sock_file write;
}

allow chronyd_t container_file_t:dir search;
allow chronyd_t container_file_t:sock_file write;
allow chronyd_t spc_t:unix_dgram_socket sendto;
`;

const SELINUX_UNIT = `[Unit]
Description=Load the SELinux policy the discovery agent needs

[Service]
Type=oneshot
ExecStartPre=checkmodule -M -m -o /root/assisted.mod /root/assisted.te
ExecStartPre=semodule_package -o /root/assisted.pp -m /root/assisted.mod
ExecStart=semodule -i /root/assisted.pp

[Install]
WantedBy=multi-user.target
`;

/** Hosts booted from iSCSI need their iBFT session up so the agent sees (and can install to) it. */
const ISCSI_UNIT = `[Unit]
Description=Log in to the iSCSI targets the firmware booted from

[Service]
Type=oneshot
ExecStartPre=-/usr/sbin/modprobe iscsi_ibft
ExecStartPre=-/usr/sbin/iscsistart -f
ExecStart=-/usr/sbin/iscsistart -b

[Install]
WantedBy=multi-user.target
`;

/** Multipath devices are discovered as one disk, as the installed system will see them. */
const MULTIPATH_CONF = `defaults {
    user_friendly_names yes
    find_multipaths yes
    enable_foreign "^$"
}
blacklist_exceptions {
    property "(SCSI_IDENT_|ID_WWN)"
}
blacklist {
}
`;

/** Keeps the IPv6 DHCP identity stable across the reboot into the installed system. */
const IPV6_DUID_CONF = `
[connection]
ipv6.dhcp-iaid=mac
ipv6.dhcp-duid=ll
`;

function profileProxy(proxy: ProxySettings): string {
  const lines: string[] = [];
  for (const [upper, value] of [
    ['HTTP_PROXY', proxy.httpProxy],
    ['HTTPS_PROXY', proxy.httpsProxy],
    ['NO_PROXY', proxy.noProxy],
  ] as const) {
    if (value) lines.push(`export ${upper}=${value}`, `export ${upper.toLowerCase()}=${value}`);
  }
  return `${lines.join('\n')}\n`;
}

const NTP_SOURCE = /^[A-Za-z0-9][A-Za-z0-9.:_-]*$/;

/**
 * `ntp_sources` replaces chrony's sources; `additional_ntp_sources` adds to them (as upstream).
 * The names go into a root shell script, so anything but a host name or address is refused.
 */
function ntpSourcesOf(attributes: Record<string, unknown>): { sources: string[]; replace: boolean } {
  const replace = typeof attributes.ntp_sources === 'string' && attributes.ntp_sources.trim() !== '';
  const field = replace ? 'ntp_sources' : 'additional_ntp_sources';
  const raw = typeof attributes[field] === 'string' ? attributes[field] : '';
  const sources = raw
    .split(',')
    .map((source) => source.trim())
    .filter(Boolean);
  const bad = sources.find((source) => !NTP_SOURCE.test(source));
  if (bad !== undefined) throw badRequest(`${field}: "${bad}" is not a host name or IP address; update the infra-env`);
  return { sources, replace };
}

function ntpScript(sources: string[], replace: boolean): string {
  const servers = sources.map((source) => `server ${source} iburst`).join('\n');
  const body = replace
    ? `# Only the infra-env's sources: chrony's default pool is dropped.
cat > /etc/chrony.conf <<'EOF'
${servers}
sourcedir /run/chrony-dhcp
driftfile /var/lib/chrony/drift
makestep 1.0 -1
rtcsync
logdir /var/log/chrony
EOF`
    : `# Step the clock whenever it is more than a second off, not only during the first updates:
# those may pass before any of the sources below is reachable.
sed -i 's/^makestep .*/makestep 1.0 -1/' /etc/chrony.conf
cat >> /etc/chrony.conf <<'EOF'
${servers}
EOF`;
  return `#!/bin/bash\n# Adds the infra-env's NTP sources before chronyd starts.\nset -euo pipefail\n${body}\n`;
}

/** Ignition writes /usr/local into /var/usrlocal on RHCOS; whichever exists is run. */
const NTP_UNIT = `[Unit]
Description=Add the infra-env's NTP sources to chrony
Before=chronyd.service

[Service]
Type=oneshot
ExecStart=/bin/bash -c 'if [ -f ${NTP_SCRIPT} ]; then exec /bin/bash ${NTP_SCRIPT}; fi; exec /bin/bash /var/usrlocal/bin/add-ntp-sources.sh'

[Install]
WantedBy=multi-user.target
`;

function sshUsers(attributes: Record<string, unknown>): IgnitionConfig['passwd']['users'] {
  const keys = String(attributes.ssh_authorized_key ?? '')
    .split('\n')
    .map((key) => key.trim())
    .filter(Boolean);
  return keys.length ? [{ name: 'core', passwordHash: '!', sshAuthorizedKeys: keys, groups: ['sudo'] }] : [];
}

/**
 * The stored `static_network_config` entries; none when unset or empty. They were checked when
 * stored, so entries of another shape are refused as generatedStaticNetworkFiles refuses them.
 */
export function staticNetworkEntries(attributes: Record<string, unknown>): StaticNetworkEntry[] {
  const raw = attributes.static_network_config;
  if (typeof raw !== 'string' || raw === '') return [];
  const entries: unknown = JSON.parse(raw);
  if (Array.isArray(entries) && entries.every(isStaticNetworkEntry)) return entries;
  const problem = (Array.isArray(entries) && staticNetworkConfigProblem(entries)) || 'it is not a list of entries';
  throw badRequest(`static_network_config cannot be applied: ${problem}; update the infra-env`);
}

/** The generated static network files; a config the generator refuses is the caller's to fix. */
export function generatedStaticNetworkFiles(entries: StaticNetworkEntry[]): ReturnType<typeof staticNetworkFiles> {
  try {
    return staticNetworkFiles(entries);
  } catch (error) {
    if (error instanceof StaticNetworkError) throw badRequest(`static_network_config cannot be applied: ${error.message}; update the infra-env`);
    throw error;
  }
}

/** Runs the staged static network files' script before NetworkManager reads its connections. */
const PRE_NETWORK_UNIT = `[Unit]
Description=Install the static network configuration that matches this host's NICs
Before=NetworkManager.service
DefaultDependencies=no

[Service]
User=root
Type=oneshot
TimeoutSec=60
ExecStart=/bin/sh ${PRE_NETWORK_SCRIPT_PATH}
PrivateTmp=true
RemainAfterExit=no

[Install]
WantedBy=multi-user.target
`;

/** The discovery ignition as generated, before the user's override (discoveryIgnitionText merges it). */
export function discoveryIgnition(input: DiscoveryIgnitionInput): IgnitionConfig {
  const attributes = input.infraEnv.attributes;
  const proxy = proxyOf(attributes);
  const hasProxy = proxy.httpProxy !== '' || proxy.httpsProxy !== '';
  const ntp = ntpSourcesOf(attributes);
  const isoType = input.isoType ?? attributes.type ?? 'full-iso';

  const units: IgnitionUnit[] = [
    { name: 'agent.service', enabled: true, contents: agentUnit(input, proxy) },
    { name: 'selinux.service', enabled: true, contents: SELINUX_UNIT },
    { name: 'multipathd.service', enabled: true },
    { name: 'iscsistart.service', enabled: true, contents: ISCSI_UNIT },
  ];
  // Full ISOs only: minimal ISOs and iPXE boots carry static networking in their initrd.
  const staticNetwork = isoType === 'full-iso' ? generatedStaticNetworkFiles(staticNetworkEntries(attributes)) : [];
  if (staticNetwork.length) units.push({ name: 'pre-network-manager-config.service', enabled: true, contents: PRE_NETWORK_UNIT });
  if (ntp.sources.length) units.push({ name: 'add-ntp-sources.service', enabled: true, contents: NTP_UNIT });

  const files: IgnitionFile[] = [
    ignitionFile(FIX_IMAGE_STORE_SCRIPT, 0o755, FIX_IMAGE_STORE),
    ignitionFile(PULL_IMAGE_SCRIPT, 0o755, PULL_IMAGE),
    ignitionFile('/etc/motd', 0o644, MOTD),
    ignitionFile('/etc/multipath.conf', 0o644, MULTIPATH_CONF),
    ignitionFile('/etc/NetworkManager/conf.d/01-ipv6.conf', 0o644, IPV6_DUID_CONF),
    // Readable by root only, unlike upstream's 0644: it is the user's registry credential.
    ignitionFile(PULL_SECRET_PATH, 0o600, input.infraEnv.pullSecret),
    ignitionFile('/root/assisted.te', 0o644, SELINUX_POLICY),
  ];
  const trustBundle = typeof attributes.additional_trust_bundle === 'string' ? attributes.additional_trust_bundle : '';
  // RHCOS refreshes the system trust store from the anchors directory at boot.
  if (trustBundle) files.push(ignitionFile(TRUST_BUNDLE_PATH, 0o644, trustBundle));
  if (input.mirrorRegistries?.registriesConf) {
    files.push(ignitionFile(REGISTRIES_CONF_PATH, 0o644, input.mirrorRegistries.registriesConf));
    if (input.mirrorRegistries.caBundle) files.push(ignitionFile(MIRROR_CA_PATH, 0o644, input.mirrorRegistries.caBundle));
  }
  files.push(...staticNetwork.map((generated) => ignitionFile(generated.path, generated.mode, generated.contents)));
  if (hasProxy) files.push(ignitionFile('/etc/profile.d/proxy.sh', 0o644, profileProxy(proxy)));
  if (ntp.sources.length) files.push(ignitionFile(NTP_SCRIPT, 0o755, ntpScript(ntp.sources, ntp.replace)));

  const config: IgnitionConfig = {
    ignition: { version: DISCOVERY_IGNITION_VERSION },
    passwd: { users: sshUsers(attributes) },
    systemd: { units },
    storage: { files },
  };
  if (hasProxy) {
    const noProxy = proxy.noProxy ? proxy.noProxy.split(',') : [];
    config.ignition.proxy = {
      ...(proxy.httpProxy ? { httpProxy: proxy.httpProxy } : {}),
      ...(proxy.httpsProxy ? { httpsProxy: proxy.httpsProxy } : {}),
      ...(noProxy.length ? { noProxy } : {}),
    };
  }
  return config;
}

/** The discovery ignition as served: JSON text, the user's override merged in. */
export function discoveryIgnitionText(input: DiscoveryIgnitionInput): string {
  const config = discoveryIgnition(input);
  const override = input.infraEnv.attributes.ignition_config_override ?? '';
  return JSON.stringify(override ? mergeIgnitionOverride(config, override) : config);
}
