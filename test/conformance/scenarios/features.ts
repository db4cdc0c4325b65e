/** Feature support levels, architectures, releases and the other catalogues a client reads before creating anything. */
import { get, type Scenario } from '../scenario.js';
import { clusterBody, clusterLifecycle, PLATFORMS, VERSIONS } from './common.js';

export function featureScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  const read = (id: string, op: string, path: string) => scenarios.push({ id: `features/${id}`, area: 'feature support', steps: [get(op, path)] });
  for (const version of [...VERSIONS, '4.18', '4.22', '4.99', 'garbage']) {
    read(`architectures/${version}`, 'GetSupportedArchitectures', `/support-levels/architectures?openshift_version=${version}`);
    for (const arch of ['x86_64', 'arm64', 'ppc64le', 's390x', 'multi']) {
      read(`features/${version}/${arch}`, 'GetSupportedFeatures', `/support-levels/features?openshift_version=${version}&cpu_architecture=${arch}`);
    }
    for (const platform of PLATFORMS) {
      const external = platform === 'external' ? '&external_platform_name=oci' : '';
      read(
        `features/${version}/x86_64/${platform}`,
        'GetSupportedFeatures',
        `/support-levels/features?openshift_version=${version}&cpu_architecture=x86_64&platform_type=${platform}${external}`,
      );
    }
    read(`detailed/${version}`, 'GetDetailedSupportedFeatures', `/support-levels/features/detailed?openshift_version=${version}`);
    read(
      `detailed/${version}/arm64/none`,
      'GetDetailedSupportedFeatures',
      `/support-levels/features/detailed?openshift_version=${version}&cpu_architecture=arm64&platform_type=none`,
    );
  }
  read('features/no-version', 'GetSupportedFeatures', '/support-levels/features');
  read('features/bad-arch', 'GetSupportedFeatures', '/support-levels/features?openshift_version=4.22.9&cpu_architecture=sparc');
  read('features/bad-platform', 'GetSupportedFeatures', '/support-levels/features?openshift_version=4.22.9&platform_type=openstack');
  read('architectures/no-version', 'GetSupportedArchitectures', '/support-levels/architectures');
  // Releases and other catalogues.
  read('versions', 'v2ListSupportedOpenshiftVersions', '/openshift-versions');
  read('versions/only-latest', 'v2ListSupportedOpenshiftVersions', '/openshift-versions?only_latest=true');
  for (const version of ['4.18', '4.22', '4.22.9', '5.0', 'x'])
    read(`versions/${version}`, 'v2ListSupportedOpenshiftVersions', `/openshift-versions?version=${version}`);
  read('release-sources', 'v2ListReleaseSources', '/release-sources');
  read('component-versions', 'v2ListComponentVersions', '/component-versions');
  read('domains', 'V2ListManagedDomains', '/domains');
  read('default-config', 'V2GetClusterDefaultConfig', '/clusters/default-config');
  // What a created cluster is told about itself.
  for (const [name, fields] of [
    ['ha', {}],
    ['sno', { control_plane_count: 1 }],
    ['arm64', { cpu_architecture: 'arm64' }],
    ['multi', { cpu_architecture: 'multi', openshift_version: '4.22.9-multi' }],
    ['odf', { olm_operators: [{ name: 'odf' }] }],
  ] as const) {
    scenarios.push({
      id: `features/cluster/${name}`,
      area: 'feature support',
      steps: clusterLifecycle(clusterBody(fields), [
        get('GetClusterSupportedPlatforms', '/clusters/{{cluster}}/supported-platforms'),
        get('v2GetPreflightRequirements', '/clusters/{{cluster}}/preflight-requirements'),
        get('V2GetClusterUISettings', '/clusters/{{cluster}}/ui-settings'),
      ]),
    });
  }
  return scenarios;
}
