/**
 * ZTP manifests → the REST API's create parameters, as upstream's agent-based installer client does
 * (seed 002): a ClusterDeployment with its AgentClusterInstall and ClusterImageSet becomes one
 * cluster-create-params; each InfraEnv becomes an infra-env-create-params carrying the static
 * network config of the NMStateConfigs its label selector picks. Every reference is checked before
 * anything is planned, and every problem names file, document and field (the field checks are in
 * cli/ztp/validate.ts). Pure: no I/O.
 */
import type { ClusterCreateParams, InfraEnvCreateParams } from '../api.js';
import { staticNetworkConfigProblem, type StaticNetworkEntry } from '../../contracts/static-network-config.js';
import { baseDomainProblem, cidrProblem, clusterNameProblem, hostPrefixProblem, parseCidr, sshPublicKeyProblem } from '../../contracts/input-checks.js';
import type { ManifestDocument, ManifestError, ManifestKind } from './manifests.js';
import { cidrList, FieldReader, key, proxyOf, pullSecretOf, staticNetworkEntry, vips } from './validate.js';
import { isJsonObject } from '../../contracts/json-shapes.js';
import { PLATFORM_TYPES, releaseFromImage } from '../../contracts/release-image.js';
import { hyperthreadingOfModes } from '../../contracts/hyperthreading.js';

export { releaseFromImage };

export const INSTALL_CONFIG_OVERRIDES_ANNOTATION = 'agent-install.openshift.io/install-config-overrides';

export interface InfraEnvPlan {
  document: ManifestDocument;
  /** Everything but cluster_id, which is known only once the cluster exists. */
  params: Omit<InfraEnvCreateParams, 'cluster_id'>;
  /** Names of the NMStateConfigs whose config went into params.static_network_config, in order. */
  nmStateConfigs: string[];
}

export interface ClusterPlan {
  clusterDeployment: ManifestDocument;
  agentClusterInstall: ManifestDocument;
  clusterImageSet: ManifestDocument;
  params: ClusterCreateParams;
  /** The install-config overrides annotation, as JSON text, to PATCH after the cluster exists. */
  installConfigOverrides?: string;
  expectedAgents: { controlPlane: number; workers: number };
  infraEnvs: InfraEnvPlan[];
}

export interface ZtpPlan {
  clusters: ClusterPlan[];
  /** InfraEnvs without a clusterRef (late binding): registered on their own. */
  unboundInfraEnvs: InfraEnvPlan[];
  /** Things worth knowing that do not stop the apply (an NMStateConfig nobody selects...). */
  warnings: string[];
}

function hyperthreadingOf(reader: FieldReader): ClusterCreateParams['hyperthreading'] {
  const modeOf = (field: string) => {
    const value = reader.string(field);
    if (value === undefined) return undefined;
    if (value !== 'Enabled' && value !== 'Disabled') {
      reader.problem(field, `must be Enabled or Disabled, not "${value}"`);
      return undefined;
    }
    return value;
  };
  const masters = modeOf('spec.controlPlane.hyperthreading');
  const workers = reader
    .list('spec.compute')
    .map((pool, index) => {
      const value = isJsonObject(pool) ? pool.hyperthreading : undefined;
      if (value === undefined || value === 'Enabled' || value === 'Disabled') return value;
      reader.problem(`spec.compute[${index}].hyperthreading`, `must be Enabled or Disabled, not ${JSON.stringify(value)}`);
      return undefined;
    })
    .find((mode) => mode !== undefined);
  return hyperthreadingOfModes(masters, workers);
}

function clusterParams(
  cd: FieldReader,
  aci: FieldReader,
  imageSet: FieldReader,
  pullSecret: string | undefined,
): { params: ClusterCreateParams; overrides?: string; expected: { controlPlane: number; workers: number } } {
  const name = cd.string('spec.clusterName', { required: true }) ?? '';
  if (name) cd.check('spec.clusterName', clusterNameProblem(name));
  const baseDomain = cd.string('spec.baseDomain', { required: true }) ?? '';
  if (baseDomain) cd.check('spec.baseDomain', baseDomainProblem(baseDomain));

  const releaseImage = imageSet.string('spec.releaseImage', { required: true });
  const release = releaseImage ? releaseFromImage(releaseImage) : undefined;
  if (releaseImage && !release) {
    imageSet.problem(
      'spec.releaseImage',
      `cannot tell the OpenShift version from "${releaseImage}": use a tagged release image such as quay.io/openshift-release-dev/ocp-release:4.18.52-x86_64`,
    );
  }

  const controlPlane = aci.integer('spec.provisionRequirements.controlPlaneAgents', { required: true, min: 1, max: 5 }) ?? 0;
  if (controlPlane === 2) aci.problem('spec.provisionRequirements.controlPlaneAgents', 'must be 1 (single node) or 3 to 5 (highly available), not 2');
  const workers = aci.integer('spec.provisionRequirements.workerAgents', { min: 0 }) ?? 0;
  const singleNode = controlPlane === 1;

  const clusterNetworks = aci.list('spec.networking.clusterNetwork').flatMap((item, index) => {
    const field = `spec.networking.clusterNetwork[${index}]`;
    if (!isJsonObject(item)) {
      aci.problem(field, 'must be {cidr, hostPrefix}');
      return [];
    }
    const cidr = item.cidr;
    if (typeof cidr !== 'string' || cidr === '') {
      aci.problem(`${field}.cidr`, 'is required (a CIDR such as 10.128.0.0/14)');
      return [];
    }
    const cidrIssue = cidrProblem(`${field}.cidr`, cidr);
    if (cidrIssue) {
      aci.problem(`${field}.cidr`, cidrIssue.replace(`${field}.cidr `, ''));
      return [];
    }
    const hostPrefix = item.hostPrefix;
    if (hostPrefix !== undefined && (typeof hostPrefix !== 'number' || !Number.isInteger(hostPrefix))) {
      aci.problem(`${field}.hostPrefix`, `must be an integer, not ${JSON.stringify(hostPrefix)}`);
      return [];
    }
    const prefix = hostPrefix ?? (parseCidr(cidr)?.family === 6 ? 64 : 23);
    const problem = hostPrefixProblem(cidr, prefix);
    if (problem) aci.problem(`${field}.hostPrefix`, problem);
    return [{ cidr, host_prefix: prefix }];
  });
  const serviceNetworks = cidrList(aci, 'spec.networking.serviceNetwork');
  const machineNetworks = cidrList(aci, 'spec.networking.machineNetwork', 'cidr');
  const networkType = aci.string('spec.networking.networkType');
  if (networkType && networkType !== 'OVNKubernetes' && networkType !== 'OpenShiftSDN') {
    aci.problem('spec.networking.networkType', `must be OVNKubernetes or OpenShiftSDN, not "${networkType}"`);
  }

  const platformName = aci.string('spec.platformType');
  let platformType = platformName === undefined ? undefined : PLATFORM_TYPES[platformName];
  if (platformName !== undefined && !platformType)
    aci.problem('spec.platformType', `must be one of ${Object.keys(PLATFORM_TYPES).join(', ')}, not "${platformName}"`);
  const userManaged = aci.boolean('spec.networking.userManagedNetworking');
  if (!platformType && (userManaged || singleNode)) platformType = 'none';

  const sshKey = aci.string('spec.sshPublicKey');
  if (sshKey) aci.check('spec.sshPublicKey', sshPublicKeyProblem(sshKey));
  const proxy = proxyOf(aci);
  const apiVips = vips(aci, 'apiVIPs', 'apiVIP');
  const ingressVips = vips(aci, 'ingressVIPs', 'ingressVIP');
  const schedulable = aci.boolean('spec.mastersSchedulable');
  const hyperthreading = hyperthreadingOf(aci);

  let diskEncryption: ClusterCreateParams['disk_encryption'];
  if (aci.get('spec.diskEncryption') !== undefined) {
    const enableOn = aci.string('spec.diskEncryption.enableOn');
    const mode = aci.string('spec.diskEncryption.mode');
    const tang = aci.string('spec.diskEncryption.tangServers');
    if (enableOn && !['none', 'all', 'masters', 'workers'].includes(enableOn))
      aci.problem('spec.diskEncryption.enableOn', `must be none, all, masters or workers, not "${enableOn}"`);
    if (mode && mode !== 'tpmv2' && mode !== 'tang') aci.problem('spec.diskEncryption.mode', `must be tpmv2 or tang, not "${mode}"`);
    diskEncryption = {
      ...(enableOn ? { enable_on: enableOn as 'none' } : {}),
      ...(mode ? { mode: mode as 'tpmv2' } : {}),
      ...(tang ? { tang_servers: tang } : {}),
    };
  }

  let overrides: string | undefined;
  const annotation = aci.document.annotations[INSTALL_CONFIG_OVERRIDES_ANNOTATION];
  if (annotation !== undefined) {
    const field = `metadata.annotations[${INSTALL_CONFIG_OVERRIDES_ANNOTATION}]`;
    try {
      const parsed: unknown = JSON.parse(annotation);
      if (!isJsonObject(parsed)) aci.problem(field, 'must be a JSON object of install-config fields');
      else overrides = JSON.stringify(parsed);
    } catch (error) {
      aci.problem(field, `is not JSON: ${(error as Error).message}`);
    }
  }

  let external: NonNullable<ClusterCreateParams['platform']>['external'];
  if (platformType === 'external') {
    const externalName = aci.string('spec.external.platformName');
    const ccm = aci.string('spec.external.cloudControllerManager');
    external = {
      ...(externalName ? { platform_name: externalName } : {}),
      ...(ccm !== undefined ? { cloud_controller_manager: ccm === 'External' ? 'External' : '' } : {}),
    };
  }

  const params: ClusterCreateParams = {
    name,
    base_dns_domain: baseDomain,
    openshift_version: release?.version ?? '',
    ...(releaseImage ? { ocp_release_image: releaseImage } : {}),
    ...(release ? { cpu_architecture: release.cpuArchitecture as ClusterCreateParams['cpu_architecture'] } : {}),
    pull_secret: pullSecret ?? '',
    control_plane_count: controlPlane,
    high_availability_mode: singleNode ? 'None' : 'Full',
    ...(clusterNetworks.length ? { cluster_networks: clusterNetworks } : {}),
    ...(serviceNetworks.length ? { service_networks: serviceNetworks.map((cidr) => ({ cidr })) } : {}),
    ...(machineNetworks.length ? { machine_networks: machineNetworks.map((cidr) => ({ cidr })) } : {}),
    ...(networkType ? { network_type: networkType as ClusterCreateParams['network_type'] } : {}),
    ...(userManaged !== undefined ? { user_managed_networking: userManaged } : singleNode ? { user_managed_networking: true } : {}),
    ...(platformType ? { platform: { type: platformType, ...(external ? { external } : {}) } } : {}),
    ...(apiVips ? { api_vips: apiVips } : {}),
    ...(ingressVips ? { ingress_vips: ingressVips } : {}),
    ...(sshKey ? { ssh_public_key: sshKey } : {}),
    ...(proxy ?? {}),
    ...(schedulable !== undefined ? { schedulable_masters: schedulable } : {}),
    ...(hyperthreading ? { hyperthreading } : {}),
    ...(diskEncryption ? { disk_encryption: diskEncryption } : {}),
  };
  return { params, ...(overrides ? { overrides } : {}), expected: { controlPlane, workers } };
}

function infraEnvPlan(
  reader: FieldReader,
  secrets: Map<string, ManifestDocument>,
  nmStateConfigs: ManifestDocument[],
  entries: Map<ManifestDocument, StaticNetworkEntry | undefined>,
  selected: Set<ManifestDocument>,
  errors: ManifestError[],
  cluster: { openshiftVersion?: string; cpuArchitecture?: string } | undefined,
): InfraEnvPlan {
  const pullSecret = pullSecretOf(reader, secrets, errors, 'spec.pullSecretRef');
  const sshKey = reader.string('spec.sshAuthorizedKey');
  if (sshKey) reader.check('spec.sshAuthorizedKey', sshPublicKeyProblem(sshKey));
  const proxy = proxyOf(reader);
  const ntp = reader.stringList('spec.additionalNTPSources');
  const ignitionOverride = reader.string('spec.ignitionConfigOverride');
  if (ignitionOverride) {
    try {
      if (!isJsonObject(JSON.parse(ignitionOverride))) reader.problem('spec.ignitionConfigOverride', 'must be a JSON object (an Ignition config)');
    } catch (error) {
      reader.problem('spec.ignitionConfigOverride', `is not JSON: ${(error as Error).message}`);
    }
  }
  const cpuArchitecture = reader.string('spec.cpuArchitecture') ?? cluster?.cpuArchitecture;
  const trustBundle = reader.string('spec.additionalTrustBundle');
  const kernelArguments = reader.list('spec.kernelArguments').flatMap((item, index) => {
    const field = `spec.kernelArguments[${index}]`;
    if (!isJsonObject(item) || typeof item.value !== 'string' || !['append', 'replace', 'delete'].includes(item.operation as string)) {
      reader.problem(field, 'must be {operation: append|replace|delete, value: string}');
      return [];
    }
    return [{ operation: item.operation as 'append', value: item.value }];
  });

  const chosen: ManifestDocument[] = [];
  const selector = reader.get('spec.nmStateConfigLabelSelector');
  if (selector !== undefined && selector !== null) {
    if (!isJsonObject(selector)) reader.problem('spec.nmStateConfigLabelSelector', 'must be a label selector ({matchLabels: {...}})');
    else {
      if (selector.matchExpressions !== undefined) reader.problem('spec.nmStateConfigLabelSelector.matchExpressions', 'is not supported; use matchLabels');
      const matchLabels = selector.matchLabels;
      if (!isJsonObject(matchLabels) || Object.keys(matchLabels).length === 0) {
        reader.problem('spec.nmStateConfigLabelSelector.matchLabels', 'must give at least one label');
      } else {
        const wanted = Object.entries(matchLabels);
        chosen.push(
          ...nmStateConfigs
            .filter((config) => config.namespace === reader.document.namespace && wanted.every(([label, value]) => config.labels[label] === String(value)))
            .sort((a, b) => a.name.localeCompare(b.name)),
        );
        if (chosen.length === 0) {
          reader.problem(
            'spec.nmStateConfigLabelSelector.matchLabels',
            `selects no NMStateConfig${reader.document.namespace ? ` in namespace "${reader.document.namespace}"` : ''} (looked for ${wanted.map(([label, value]) => `${label}=${String(value)}`).join(', ')})`,
          );
        }
      }
    }
  }
  for (const config of chosen) selected.add(config);
  const staticEntries = chosen.map((config) => entries.get(config)).filter((entry): entry is StaticNetworkEntry => entry !== undefined);
  if (staticEntries.length === chosen.length && staticEntries.length > 1) {
    // Each NMStateConfig passed alone; together a MAC may still be claimed twice.
    const problem = staticNetworkConfigProblem(staticEntries);
    if (problem) {
      reader.problem(
        'spec.nmStateConfigLabelSelector',
        problem.replace(/static_network_config\[(\d+)\]/g, (_, index: string) => `NMStateConfig "${chosen[Number(index)]!.name}"`),
      );
    }
  }

  const params: Omit<InfraEnvCreateParams, 'cluster_id'> = {
    name: reader.document.name,
    pull_secret: pullSecret ?? '',
    ...(sshKey ? { ssh_authorized_key: sshKey } : {}),
    ...(proxy ? { proxy } : {}),
    ...(ntp.length ? { additional_ntp_sources: ntp.join(',') } : {}),
    ...(ignitionOverride ? { ignition_config_override: ignitionOverride } : {}),
    ...(cpuArchitecture ? { cpu_architecture: cpuArchitecture as InfraEnvCreateParams['cpu_architecture'] } : {}),
    ...(cluster?.openshiftVersion ? { openshift_version: cluster.openshiftVersion } : {}),
    ...(trustBundle ? { additional_trust_bundle: trustBundle } : {}),
    ...(kernelArguments.length ? { kernel_arguments: kernelArguments } : {}),
    ...(staticEntries.length ? { static_network_config: staticEntries } : {}),
  };
  return { document: reader.document, params, nmStateConfigs: chosen.map((config) => config.name) };
}

/** Validates the manifests as a whole and plans what to register; a plan is only usable when `errors` is empty. */
export function planFromManifests(documents: readonly ManifestDocument[]): { plan: ZtpPlan; errors: ManifestError[] } {
  const errors: ManifestError[] = [];
  const warnings: string[] = [];
  const byKind = (kind: ManifestKind) => documents.filter((document) => document.kind === kind);
  const index = (kind: ManifestKind, clusterScoped = false) => {
    const map = new Map<string, ManifestDocument>();
    for (const document of byKind(kind)) {
      const id = key(clusterScoped ? '' : document.namespace, document.name);
      const earlier = map.get(id);
      if (earlier) new FieldReader(document, errors).problem('metadata.name', `another ${kind} has this name (${earlier.file} document ${earlier.index})`);
      else map.set(id, document);
    }
    return map;
  };
  const clusterDeployments = index('ClusterDeployment');
  const agentClusterInstalls = index('AgentClusterInstall');
  // ClusterImageSets are cluster-scoped in Kubernetes: referenced by name alone.
  const imageSets = index('ClusterImageSet', true);
  const secrets = index('Secret');
  const infraEnvsByKey = index('InfraEnv');
  const nmStateConfigs = [...index('NMStateConfig').values()];
  const entries = new Map(nmStateConfigs.map((config) => [config, staticNetworkEntry(new FieldReader(config, errors))] as const));
  const selected = new Set<ManifestDocument>();

  const clusters: ClusterPlan[] = [];
  const usedAcis = new Set<ManifestDocument>();
  const planByDeployment = new Map<ManifestDocument, ClusterPlan>();
  for (const cd of clusterDeployments.values()) {
    const cdReader = new FieldReader(cd, errors);
    const refKind = cdReader.string('spec.clusterInstallRef.kind', { required: true });
    if (refKind && refKind !== 'AgentClusterInstall') cdReader.problem('spec.clusterInstallRef.kind', `must be AgentClusterInstall, not "${refKind}"`);
    const group = cdReader.string('spec.clusterInstallRef.group');
    if (group && group !== 'extensions.hive.openshift.io')
      cdReader.problem('spec.clusterInstallRef.group', `must be extensions.hive.openshift.io, not "${group}"`);
    const aciName = cdReader.string('spec.clusterInstallRef.name', { required: true });
    const aci = aciName ? agentClusterInstalls.get(key(cd.namespace, aciName)) : undefined;
    if (aciName && !aci)
      cdReader.problem(
        'spec.clusterInstallRef.name',
        `AgentClusterInstall "${aciName}" is not among the manifests${cd.namespace ? ` in namespace "${cd.namespace}"` : ''}`,
      );
    const pullSecret = pullSecretOf(cdReader, secrets, errors, 'spec.pullSecretRef');
    if (!aci) continue;
    usedAcis.add(aci);
    const aciReader = new FieldReader(aci, errors);
    const backRef = aciReader.string('spec.clusterDeploymentRef.name', { required: true });
    if (backRef && backRef !== cd.name)
      aciReader.problem('spec.clusterDeploymentRef.name', `names "${backRef}" but ClusterDeployment "${cd.name}" refers to this AgentClusterInstall`);
    const imageSetName = aciReader.string('spec.imageSetRef.name', { required: true });
    const imageSet = imageSetName ? imageSets.get(key('', imageSetName)) : undefined;
    if (imageSetName && !imageSet) aciReader.problem('spec.imageSetRef.name', `ClusterImageSet "${imageSetName}" is not among the manifests`);
    if (!imageSet) continue;
    const { params, overrides, expected } = clusterParams(cdReader, aciReader, new FieldReader(imageSet, errors), pullSecret);
    const plan: ClusterPlan = {
      clusterDeployment: cd,
      agentClusterInstall: aci,
      clusterImageSet: imageSet,
      params,
      ...(overrides ? { installConfigOverrides: overrides } : {}),
      expectedAgents: expected,
      infraEnvs: [],
    };
    clusters.push(plan);
    planByDeployment.set(cd, plan);
  }
  for (const aci of agentClusterInstalls.values()) {
    if (usedAcis.has(aci)) continue;
    const reader = new FieldReader(aci, errors);
    const cdName = reader.string('spec.clusterDeploymentRef.name', { required: true });
    if (cdName && !clusterDeployments.has(key(aci.namespace, cdName)))
      reader.problem(
        'spec.clusterDeploymentRef.name',
        `ClusterDeployment "${cdName}" is not among the manifests${aci.namespace ? ` in namespace "${aci.namespace}"` : ''}`,
      );
    else if (cdName) reader.problem('metadata.name', `ClusterDeployment "${cdName}" does not refer to this AgentClusterInstall in spec.clusterInstallRef`);
  }
  if (clusterDeployments.size === 0 && byKind('InfraEnv').length === 0 && errors.length === 0) {
    errors.push({ file: '(directory)', message: 'holds no ClusterDeployment and no InfraEnv: nothing to apply' });
  }

  const unboundInfraEnvs: InfraEnvPlan[] = [];
  for (const infraEnv of infraEnvsByKey.values()) {
    const reader = new FieldReader(infraEnv, errors);
    const clusterName = reader.string('spec.clusterRef.name');
    let plan: ClusterPlan | undefined;
    if (clusterName) {
      const namespace = reader.string('spec.clusterRef.namespace') ?? infraEnv.namespace;
      const cd = clusterDeployments.get(key(namespace, clusterName));
      if (!cd)
        reader.problem(
          'spec.clusterRef.name',
          `ClusterDeployment "${clusterName}" is not among the manifests${namespace ? ` in namespace "${namespace}"` : ''}`,
        );
      else plan = planByDeployment.get(cd);
    }
    const infraPlan = infraEnvPlan(
      reader,
      secrets,
      nmStateConfigs,
      entries,
      selected,
      errors,
      plan ? { openshiftVersion: plan.params.openshift_version, cpuArchitecture: plan.params.cpu_architecture } : undefined,
    );
    if (plan) plan.infraEnvs.push(infraPlan);
    else if (!clusterName) unboundInfraEnvs.push(infraPlan);
  }
  for (const config of nmStateConfigs) {
    if (!selected.has(config))
      warnings.push(`${config.file}: document ${config.index} (NMStateConfig "${config.name}"): no InfraEnv selects it; it is not applied`);
  }
  for (const plan of clusters) {
    if (plan.infraEnvs.length === 0)
      warnings.push(
        `${plan.clusterDeployment.file}: ClusterDeployment "${plan.clusterDeployment.name}": no InfraEnv refers to it, so no discovery image will carry its hosts`,
      );
  }
  return { plan: { clusters, unboundInfraEnvs, warnings }, errors };
}
