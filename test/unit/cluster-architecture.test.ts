import { describe, expect, it } from 'vitest';
import { clusterCpuArchitectureProblem, resolveReleaseImage } from '../../lambdas/domain/catalogues/catalogues.js';

describe('the CPU architecture a new cluster names (upstream getNewClusterCPUArchitecture)', () => {
  it('passes x86_64, none and multi, and the architectures offered for the version by their own names', () => {
    for (const arch of [undefined, '', 'x86_64', 'multi', 'arm64', 'ppc64le', 's390x']) expect(clusterCpuArchitectureProblem('4.18', arch)).toBeUndefined();
    expect(clusterCpuArchitectureProblem('4.14.71', 'arm64')).toBeUndefined();
  });

  it('refuses the alias aarch64 as upstream\'s service does (400 "Requested CPU architecture aarch64 is not available")', () => {
    for (const version of ['4.14.71', '4.18'])
      expect(clusterCpuArchitectureProblem(version, 'aarch64')).toBe('Requested CPU architecture aarch64 is not available');
  });
});

describe("the release a new cluster names by its payload (ocp_release_image), as upstream's service answered", () => {
  const image = (tag: string) => `quay.io/openshift-release-dev/ocp-release:${tag}`;
  it("takes the payload's release over the version asked for", () => {
    expect(resolveReleaseImage(image('4.14.71-x86_64'), '')).toEqual({
      openshiftVersion: '4.14.71',
      releaseImage: image('4.14.71-x86_64'),
      cpuArchitecture: 'x86_64',
    });
    expect(resolveReleaseImage(image('4.18.52-aarch64'), 'arm64')).toMatchObject({ openshiftVersion: '4.18.52', cpuArchitecture: 'arm64' });
    for (const arch of ['', 'multi', 'arm64'])
      expect(resolveReleaseImage(image('4.22.9-multi'), arch)).toMatchObject({ openshiftVersion: '4.22.9-multi', cpuArchitecture: 'multi' });
  });

  it('refuses a payload that is not offered or does not fit the architecture', () => {
    expect(resolveReleaseImage('not an image', '')).toHaveProperty('problem');
    expect(resolveReleaseImage(image('4.18.52-aarch64'), '')).toEqual({
      problem: `Requested CPU architecture x86_64 is not supported for release image URL ${image('4.18.52-aarch64')}. Supported architectures in release image: [arm64]`,
    });
    expect(resolveReleaseImage(image('4.14.71-x86_64'), 'multi')).toEqual({
      problem: `release image URL ${image('4.14.71-x86_64')} does not support requested CPU architecture multi`,
    });
  });
});
