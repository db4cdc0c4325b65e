/**
 * What the Kubernetes resources of upstream's ZTP flow name that the REST API names otherwise, read
 * the same by `assisted ztp apply` and by the hub controller.
 */
import type { ClusterCreateParams } from './wire.js';

/** OpenShift version and CPU architecture from a release image tag such as ocp-release:4.18.52-x86_64. */
export function releaseFromImage(image: string): { version: string; cpuArchitecture: string } | undefined {
  const tag = /:(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)-(x86_64|aarch64|arm64|ppc64le|s390x|multi)$/.exec(image);
  if (!tag) return undefined;
  const arch = tag[2] === 'aarch64' ? 'arm64' : tag[2]!;
  return { version: arch === 'multi' ? `${tag[1]}-multi` : tag[1]!, cpuArchitecture: arch };
}

/** AgentClusterInstall's spec.platformType → the API's platform type. */
export const PLATFORM_TYPES: Record<string, NonNullable<ClusterCreateParams['platform']>['type']> = {
  BareMetal: 'baremetal',
  None: 'none',
  VSphere: 'vsphere',
  Nutanix: 'nutanix',
  External: 'external',
};
