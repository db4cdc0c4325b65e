/**
 * The custom resources the hub controller watches, by group/version/plural, and loose readers for
 * their fields. Objects come from the API server as JSON shaped by upstream's CRDs (used unchanged);
 * the controller reads what it honours and leaves the rest alone.
 */

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export const CLUSTER_IMAGE_SET: ResourceType = {
  group: 'hive.openshift.io',
  version: 'v1',
  plural: 'clusterimagesets',
  kind: 'ClusterImageSet',
  namespaced: false,
};
export const CLUSTER_DEPLOYMENT: ResourceType = {
  group: 'hive.openshift.io',
  version: 'v1',
  plural: 'clusterdeployments',
  kind: 'ClusterDeployment',
  namespaced: true,
};
export const AGENT_CLUSTER_INSTALL: ResourceType = {
  group: 'extensions.hive.openshift.io',
  version: 'v1beta1',
  plural: 'agentclusterinstalls',
  kind: 'AgentClusterInstall',
  namespaced: true,
};
export const INFRA_ENV: ResourceType = { group: 'agent-install.openshift.io', version: 'v1beta1', plural: 'infraenvs', kind: 'InfraEnv', namespaced: true };
export const NMSTATE_CONFIG: ResourceType = {
  group: 'agent-install.openshift.io',
  version: 'v1beta1',
  plural: 'nmstateconfigs',
  kind: 'NMStateConfig',
  namespaced: true,
};
export const AGENT: ResourceType = { group: 'agent-install.openshift.io', version: 'v1beta1', plural: 'agents', kind: 'Agent', namespaced: true };
export const BARE_METAL_HOST: ResourceType = { group: 'metal3.io', version: 'v1alpha1', plural: 'baremetalhosts', kind: 'BareMetalHost', namespaced: true };

export const WATCHED: readonly ResourceType[] = [
  CLUSTER_IMAGE_SET,
  CLUSTER_DEPLOYMENT,
  AGENT_CLUSTER_INSTALL,
  INFRA_ENV,
  NMSTATE_CONFIG,
  AGENT,
  BARE_METAL_HOST,
];

export const apiPath = (type: ResourceType, namespace?: string) =>
  `/apis/${type.group}/${type.version}${type.namespaced && namespace ? `/namespaces/${namespace}` : ''}/${type.plural}`;

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    /** A string on the wire; typed as the client library types it. */
    deletionTimestamp?: Date;
  };
  spec?: Record<string, any>;
  status?: Record<string, any>;
}

/** Annotations and labels the controller writes, with upstream's names where upstream has one. */
export const ANNOTATION = {
  clusterId: 'agent-install.openshift.io/cluster-id',
  infraEnvId: 'agent-install.openshift.io/infra-env-id',
  installConfigOverrides: 'agent-install.openshift.io/install-config-overrides',
  bmhRole: 'bmac.agent-install.openshift.io/role',
  bmhHostname: 'bmac.agent-install.openshift.io/hostname',
  bmhInstallerArgs: 'bmac.agent-install.openshift.io/installer-args',
  bmhIgnitionOverrides: 'bmac.agent-install.openshift.io/ignition-config-overrides',
  bmhAgentLabelPrefix: 'bmac.agent-install.openshift.io.agent-label.',
  bmhDetached: 'baremetalhost.metal3.io/detached',
} as const;

export const LABEL = {
  infraEnv: 'infraenvs.agent-install.openshift.io',
  clusterDeploymentNamespace: 'agent-install.openshift.io/clusterdeployment-namespace',
  bmh: 'agent-install.openshift.io/bmh',
} as const;

export const FINALIZER = {
  agentClusterInstall: 'agentclusterinstall.agent-install.openshift.io/ai-deprovision',
  clusterDeployment: 'clusterdeployments.agent-install.openshift.io/ai-deprovision',
  infraEnv: 'infraenv.agent-install.openshift.io/ai-deprovision',
  agent: 'agent.agent-install.openshift.io/ai-deprovision',
} as const;

export const objectKey = (type: ResourceType, namespace: string | undefined, name: string) => `${type.kind}/${namespace ?? ''}/${name}`;

export function parseKey(key: string): { kind: string; namespace: string; name: string } {
  const [kind = '', namespace = '', ...rest] = key.split('/');
  return { kind, namespace, name: rest.join('/') };
}

export const isDeleting = (object: KubeObject) => Boolean(object.metadata.deletionTimestamp);
