/**
 * The features a cluster uses (upstream's featuresupport "active features") and the checks upstream
 * makes of them when a cluster is created or updated: OpenShiftSDN only before 4.15, every feature
 * offered for the CPU architecture, and no two features that cannot go together (VIP DHCP
 * allocation with platform none, a user-managed load balancer with user-managed networking...).
 * The catalogue (catalogues/features.json) holds the support levels and incompatibilities. Pure.
 *
 * Left out: operator features (the operators' own checks decide those), the ISO features (an
 * infra-env's), two-node topologies (known only from the hosts' roles) and IPv6-primary dual-stack.
 */
import {
  featureName,
  featureSupportLevel,
  featureUnavailableForArchitecture,
  incompatibleFeaturePair,
  isArchitectureSupported,
  type FeatureId,
} from '../catalogues/feature-support.js';
import type { ClusterAttributes } from '../core/entities.js';
import { isDualStack } from './cluster-machine-network.js';

const NETWORK_TYPE_FEATURES: Record<string, FeatureId> = {
  OpenShiftSDN: 'SDN_NETWORK_TYPE',
  OVNKubernetes: 'OVN_NETWORK_TYPE',
  Cilium: 'CILIUM_NETWORK_TYPE',
  Calico: 'CALICO_NETWORK_TYPE',
  CiscoACI: 'CISCO_ACI_NETWORK_TYPE',
  None: 'NONE_NETWORK_TYPE',
};

const PLATFORM_FEATURES: Record<string, FeatureId> = {
  baremetal: 'BAREMETAL_PLATFORM',
  none: 'NONE_PLATFORM',
  nutanix: 'NUTANIX_INTEGRATION',
  vsphere: 'VSPHERE_INTEGRATION',
  external: 'EXTERNAL_PLATFORM',
};

/**
 * The features a cluster's settings use. On update, pass the stored settings too: a dual-stack
 * network, a user-managed load balancer and the OCI integration count when either side has them,
 * as upstream's checks look at the stored cluster and the request side by side.
 */
export function activeClusterFeatures(attributes: ClusterAttributes, stored?: ClusterAttributes): FeatureId[] {
  const active = new Set<FeatureId>();
  const controlPlaneCount = attributes.control_plane_count ?? 3;
  if (controlPlaneCount === 1) active.add('SNO');
  if (controlPlaneCount > 3) active.add('NON_STANDARD_HA_CONTROL_PLANE');
  if (attributes.vip_dhcp_allocation === true) active.add('VIP_AUTO_ALLOC');
  active.add(attributes.user_managed_networking === true ? 'USER_MANAGED_NETWORKING' : 'CLUSTER_MANAGED_NETWORKING');
  if (isDualStack(attributes) || (stored && isDualStack(stored))) active.add('DUAL_STACK');
  if ((attributes.api_vips?.length ?? 0) > 1) active.add('DUAL_STACK_VIPS');
  const platform = attributes.platform?.type;
  if (platform === 'none' || platform === 'external') active.add('PLATFORM_MANAGED_NETWORKING');
  const networkFeature = NETWORK_TYPE_FEATURES[attributes.network_type ?? ''];
  if (networkFeature) active.add(networkFeature);
  if (attributes.load_balancer?.type === 'user-managed' || stored?.load_balancer?.type === 'user-managed') active.add('USER_MANAGED_LOAD_BALANCER');
  const platformFeature = PLATFORM_FEATURES[platform ?? ''];
  if (platformFeature) active.add(platformFeature);
  const oci = (a: ClusterAttributes | undefined) => a?.platform?.external?.platform_name === 'oci';
  if (platform === 'external' && (oci(attributes) || oci(stored))) active.add('EXTERNAL_PLATFORM_OCI');
  return [...active];
}

/**
 * Why upstream refuses a cluster with these features, in its words, or undefined. The CPU
 * architecture is the one the create request names; an update passes none, as upstream checks
 * architectures on update only through the cluster's infra-envs.
 */
export function clusterFeaturesProblem(active: readonly FeatureId[], openshiftVersion: string, cpuArchitecture?: string): string | undefined {
  if (active.includes('SDN_NETWORK_TYPE') && featureSupportLevel('SDN_NETWORK_TYPE', { openshiftVersion }).level === 'unavailable') {
    return `Openshift version ${openshiftVersion} is not supported for OpenShiftSDN NetworkType`;
  }
  if (cpuArchitecture) {
    if (!isArchitectureSupported(cpuArchitecture, openshiftVersion)) {
      return `cannot use ${cpuArchitecture} architecture because it's not compatible on version ${openshiftVersion} of OpenShift`;
    }
    const unavailable = featureUnavailableForArchitecture(active, openshiftVersion, cpuArchitecture);
    if (unavailable) {
      return `cannot use ${featureName(unavailable)} because it's not compatible with the ${cpuArchitecture} architecture on version ${openshiftVersion} of OpenShift`;
    }
  }
  const pair = incompatibleFeaturePair(active, openshiftVersion);
  return pair ? `cannot use ${featureName(pair[0])} because it's not compatible with ${featureName(pair[1])}` : undefined;
}
