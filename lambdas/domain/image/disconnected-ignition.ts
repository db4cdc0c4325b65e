/**
 * The ignition of a disconnected ISO: the agent-based installer's *unconfigured* ignition, which
 * `openshift-install agent create unconfigured-ignition` makes from a directory of inputs. The
 * hosts booted from it never talk to this service: they start the installer's interactive UI and
 * install a cluster among themselves from the release mirrored inside the ISO.
 *
 * Here: the installer's input directory an infra-env stands for (as upstream's disconnected
 * ignition generator writes it), the sentinel that makes the UI interactive, and the SIMULATED
 * generator used where no openshift-install is configured. Pure: no I/O.
 */
import YAML from 'yaml';
import { generatedStaticNetworkFiles, ignitionFile, staticNetworkEntries, type IgnitionFile } from './discovery-ignition.js';
import type { InfraEnv } from '../core/entities.js';
import { isJsonObject, textOrEmpty } from '../../../contracts/json-shapes.js';
import type { StaticNetworkEntry } from './static-network/static-network.js';

/** The installer's input directory: path relative to it → contents. */
export type InstallerDirectory = Record<string, string>;

export const INFRAENV_MANIFEST = 'cluster-manifests/infraenv.yaml';
export const PULL_SECRET_MANIFEST = 'cluster-manifests/pull-secret.yaml';
export const NMSTATE_MANIFEST = 'cluster-manifests/nmstateconfig.yaml';
export const MIRROR_REGISTRIES = 'mirror/registries.conf';
export const AGENT_CONFIG = 'agent-config.yaml';
/** What the installer writes into the directory. */
export const UNCONFIGURED_IGNITION_FILE = 'unconfigured-agent.ign';
/** Its presence makes the agent-based installer start its interactive UI (upstream adds it). */
export const INTERACTIVE_UI_SENTINEL = '/etc/assisted/interactive-ui';
/** Where the simulated ignition says what it is. */
export const SIMULATED_MARKER_PATH = '/etc/assisted/SIMULATED-unconfigured-ignition.txt';

const PULL_SECRET_NAME = 'pull-secret';
const INFRAENV_LABEL = 'agent-install.openshift.io/infraenv-id';

/**
 * The registries of a disconnected ISO: the release and its payload images are pulled from the
 * registry the appliance runs on the hosts themselves (registry.appliance.openshift.com:5000), as
 * in upstream's disconnected ISO; not the service's own mirror settings.
 */
export const APPLIANCE_REGISTRIES_CONF = `# Release images come from the registry the OpenShift appliance serves on the hosts.
[[registry]]
  location = "quay.io/openshift-release-dev/ocp-release"
  prefix = ""

  [[registry.mirror]]
    location = "registry.appliance.openshift.com:5000/openshift/release-images"

[[registry]]
  location = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"
  prefix = ""

  [[registry.mirror]]
    location = "registry.appliance.openshift.com:5000/openshift/release"
`;

export interface DisconnectedIgnitionInput {
  infraEnv: Pick<InfraEnv, 'infraEnvId' | 'name' | 'pullSecret' | 'attributes'>;
  /** The DisconnectedCluster's name: the AgentConfig is named after it. */
  clusterName: string;
}

const yaml = (document: unknown) => YAML.stringify(document, { lineWidth: 0 });
/** A parsed document's field that holds an object; an empty one when it does not. */
const objectField = (document: unknown, field: string): Record<string, unknown> => {
  const value = isJsonObject(document) ? document[field] : undefined;
  return isJsonObject(value) ? value : {};
};

function ntpSources(attributes: Record<string, unknown>): string[] {
  const raw = typeof attributes.ntp_sources === 'string' && attributes.ntp_sources.trim() !== '' ? attributes.ntp_sources : attributes.additional_ntp_sources;
  return typeof raw === 'string'
    ? raw
        .split(',')
        .map((source) => source.trim())
        .filter(Boolean)
    : [];
}

function infraEnvManifest(input: DisconnectedIgnitionInput, hasStaticNetwork: boolean): string {
  const attributes = input.infraEnv.attributes;
  const proxy = attributes.proxy ?? {};
  const spec: Record<string, unknown> = {
    pullSecretRef: { name: PULL_SECRET_NAME },
    ...(textOrEmpty(attributes.ssh_authorized_key) ? { sshAuthorizedKey: textOrEmpty(attributes.ssh_authorized_key) } : {}),
    cpuArchitecture: textOrEmpty(attributes.cpu_architecture) || 'x86_64',
  };
  if (textOrEmpty(proxy.http_proxy) || textOrEmpty(proxy.https_proxy)) {
    spec.proxy = { httpProxy: textOrEmpty(proxy.http_proxy), httpsProxy: textOrEmpty(proxy.https_proxy), noProxy: textOrEmpty(proxy.no_proxy) };
  }
  const ntp = ntpSources(attributes);
  if (ntp.length) spec.additionalNTPSources = ntp;
  if (hasStaticNetwork) spec.nmStateConfigLabelSelector = { matchLabels: { [INFRAENV_LABEL]: input.infraEnv.infraEnvId } };
  return yaml({ apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv', metadata: { name: input.infraEnv.name }, spec });
}

function nmStateManifest(infraEnvId: string, entries: readonly StaticNetworkEntry[]): string | undefined {
  const documents = entries.flatMap((entry, index) => {
    const interfaces = (entry.mac_interface_map ?? [])
      .filter((nic) => nic.mac_address && nic.logical_nic_name)
      .map((nic) => ({ name: nic.logical_nic_name!, macAddress: nic.mac_address }));
    if (!entry.network_yaml || interfaces.length === 0) return [];
    return [
      yaml({
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'NMStateConfig',
        metadata: { name: `nmstate-config-${index}`, labels: { [INFRAENV_LABEL]: infraEnvId } },
        spec: { interfaces, config: YAML.parse(entry.network_yaml) },
      }),
    ];
  });
  return documents.length ? documents.join('---\n') : undefined;
}

/** The installer's inputs for an infra-env: its manifests, the appliance's registries, the rendezvous IP. */
export function unconfiguredIgnitionInputs(input: DisconnectedIgnitionInput): InstallerDirectory {
  const attributes = input.infraEnv.attributes;
  const entries = staticNetworkEntries(attributes);
  const nmState = nmStateManifest(input.infraEnv.infraEnvId, entries);
  const directory: InstallerDirectory = {
    [INFRAENV_MANIFEST]: infraEnvManifest(input, nmState !== undefined),
    [PULL_SECRET_MANIFEST]: yaml({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: PULL_SECRET_NAME },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': input.infraEnv.pullSecret },
    }),
    [MIRROR_REGISTRIES]: APPLIANCE_REGISTRIES_CONF,
  };
  if (nmState) directory[NMSTATE_MANIFEST] = nmState;
  const rendezvousIp = typeof attributes.rendezvous_ip === 'string' ? attributes.rendezvous_ip : '';
  if (rendezvousIp) {
    directory[AGENT_CONFIG] = yaml({ apiVersion: 'v1beta1', kind: 'AgentConfig', metadata: { name: input.clusterName }, rendezvousIP: rendezvousIp });
  }
  return directory;
}

/** Adds the interactive-UI sentinel (an empty file) to an unconfigured ignition, replacing one already there. */
export function withInteractiveUi(ignitionText: string): string {
  const config: unknown = JSON.parse(ignitionText);
  if (!isJsonObject(config)) throw new Error('the unconfigured ignition is not an Ignition config (a JSON object)');
  const storage = isJsonObject(config.storage) ? config.storage : undefined;
  const existing = storage?.files;
  const files = (Array.isArray(existing) ? existing : []).filter((file) => !isJsonObject(file) || file.path !== INTERACTIVE_UI_SENTINEL);
  const sentinel: IgnitionFile = { path: INTERACTIVE_UI_SENTINEL, mode: 0o644, overwrite: true, user: { name: 'root' }, contents: { source: 'data:,' } };
  return JSON.stringify({ ...config, storage: { ...storage, files: [...files, sentinel] } });
}

const SIMULATED_NOTE = `This is a SIMULATED unconfigured ignition, made by assisted-cloud because no openshift-install
was configured to run "openshift-install agent create unconfigured-ignition". It carries the
installer's inputs (the InfraEnv and pull secret manifests, the NMState configuration, the
appliance registries and the rendezvous IP) where the agent-based installer reads them, but none
of the installer's services: a host booted with it does not install OpenShift.
`;

/**
 * The SIMULATED generator: an Ignition 3.2.0 config (the version the installer writes) with the
 * inputs placed where the agent-based installer's unconfigured ignition places them (manifests
 * under /etc/assisted/manifests, the registries, the rendezvous host, the static network files),
 * the core user's SSH key, and a file saying it is simulated. No agent services.
 */
export function simulatedUnconfiguredIgnition(directory: InstallerDirectory): string {
  // The documents are the ones unconfiguredIgnitionInputs wrote.
  const infraEnvSpec = objectField(YAML.parse(directory[INFRAENV_MANIFEST] ?? ''), 'spec');
  const agentConfig: unknown = directory[AGENT_CONFIG] ? YAML.parse(directory[AGENT_CONFIG]) : undefined;
  const rendezvousIp = isJsonObject(agentConfig) ? textOrEmpty(agentConfig.rendezvousIP) : '';
  const files: IgnitionFile[] = [ignitionFile(SIMULATED_MARKER_PATH, 0o644, SIMULATED_NOTE)];
  for (const manifest of [INFRAENV_MANIFEST, PULL_SECRET_MANIFEST, NMSTATE_MANIFEST]) {
    const contents = directory[manifest];
    if (contents !== undefined) files.push(ignitionFile(`/etc/assisted/manifests/${manifest.split('/').pop()}`, 0o600, contents));
  }
  if (directory[MIRROR_REGISTRIES]) files.push(ignitionFile('/etc/containers/registries.conf', 0o644, directory[MIRROR_REGISTRIES]));
  if (rendezvousIp) files.push(ignitionFile('/etc/assisted/rendezvous-host.env', 0o600, `NODE_ZERO_IP=${rendezvousIp}\n`));
  const nmState = directory[NMSTATE_MANIFEST]
    ? YAML.parseAllDocuments(directory[NMSTATE_MANIFEST]).map((document) => objectField(document.toJS(), 'spec'))
    : [];
  const entries: StaticNetworkEntry[] = nmState.map((spec) => ({
    network_yaml: YAML.stringify(spec.config),
    mac_interface_map: (Array.isArray(spec.interfaces) ? spec.interfaces : []).map((nic: unknown) => ({
      mac_address: isJsonObject(nic) ? textOrEmpty(nic.macAddress) : '',
      logical_nic_name: isJsonObject(nic) ? textOrEmpty(nic.name) : '',
    })),
  }));
  files.push(...generatedStaticNetworkFiles(entries).map((generated) => ignitionFile(generated.path, generated.mode, generated.contents)));
  const sshKey = textOrEmpty(infraEnvSpec.sshAuthorizedKey).trim();
  return JSON.stringify({
    ignition: { version: '3.2.0' },
    passwd: {
      users: sshKey
        ? [
            {
              name: 'core',
              sshAuthorizedKeys: sshKey
                .split('\n')
                .map((key) => key.trim())
                .filter(Boolean),
            },
          ]
        : [],
    },
    storage: { directories: [{ path: '/opt/agent/tls', mode: 0o755, overwrite: true, user: { name: 'root' } }], files },
  });
}
