import { describe, expect, it } from 'vitest';
import { clusterCpuArchitectureProblem } from '../../lambdas/domain/catalogues/catalogues.js';

describe('the CPU architecture a new cluster names (upstream getNewClusterCPUArchitecture)', () => {
  it('passes x86_64, none and multi, and the architectures offered for the version by their own names', () => {
    for (const arch of [undefined, '', 'x86_64', 'multi', 'arm64', 'ppc64le', 's390x']) expect(clusterCpuArchitectureProblem('4.18', arch)).toBeUndefined();
    expect(clusterCpuArchitectureProblem('4.14.71', 'arm64')).toBeUndefined();
  });

  it('refuses the alias aarch64 as upstream\'s service does (400 "Requested CPU architecture aarch64 is not available")', () => {
    for (const version of ['4.14.71', '4.18']) expect(clusterCpuArchitectureProblem(version, 'aarch64')).toBe('Requested CPU architecture aarch64 is not available');
  });
});
