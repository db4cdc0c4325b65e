import { describe, expect, it } from 'vitest';
import { supportedOperatorNames } from '../../lambdas/domain/catalogues/catalogues.js';
import { hardwareMinimums, preflightClusterOf, preflightRequirements, type HardwareRequirementsEntry } from '../../lambdas/domain/catalogues/preflight.js';

const MASTER = {
  cpu_cores: 4,
  ram_mib: 16384,
  disk_size_gb: 100,
  installation_disk_speed_threshold_ms: 10,
  network_latency_threshold_ms: 100,
  packet_loss_percentage: 0,
};
const WORKER = {
  cpu_cores: 2,
  ram_mib: 8192,
  disk_size_gb: 100,
  installation_disk_speed_threshold_ms: 10,
  network_latency_threshold_ms: 1000,
  packet_loss_percentage: 10,
};

describe('hardwareMinimums (shipped data)', () => {
  it.each([
    ['4.18.5', 8],
    ['4.21.0', 8],
    ['4.22.0', 4],
    ['4.22.9-multi', 4],
    ['5.0.0-ec.5', 4],
    ['not-a-version', 8],
  ])('single-node minimums for %s need %i cores', (version, cores) => {
    const minimums = hardwareMinimums(version);
    expect(minimums.sno).toEqual({ cpu_cores: cores, ram_mib: 16384, disk_size_gb: 100, installation_disk_speed_threshold_ms: 10 });
    // A partial min_version entry changes only what it names.
    expect(minimums.master).toEqual(MASTER);
    expect(minimums.worker).toEqual(WORKER);
  });
});

describe('hardwareMinimums (lookup rules)', () => {
  const entries: HardwareRequirementsEntry[] = [
    { version: 'default', master: { cpu_cores: 4, ram_mib: 16384 }, worker: { cpu_cores: 2, ram_mib: 8192 }, sno: { cpu_cores: 8 } },
    { version: '4.20', match_type: 'min_version', worker: { cpu_cores: 3 } },
    { version: '4.21', match_type: 'min_version', worker: { ram_mib: 9000 } },
    { version: '4.21.7', master: { cpu_cores: 6 } },
  ];
  it.each([
    ['4.19.9', { master: { cpu_cores: 4, ram_mib: 16384 }, worker: { cpu_cores: 2, ram_mib: 8192 } }],
    ['4.20.0', { worker: { cpu_cores: 3, ram_mib: 8192 } }],
    // The highest min_version entry wins, merged over default only (not over lower entries).
    ['4.21.3', { worker: { cpu_cores: 2, ram_mib: 9000 } }],
    // An exact entry beats min_version entries.
    ['4.21.7', { master: { cpu_cores: 6, ram_mib: 16384 }, worker: { cpu_cores: 2, ram_mib: 8192 } }],
  ])('%s', (version, expected) => {
    expect(hardwareMinimums(version, entries)).toMatchObject(expected);
  });

  it('falls back to the worker for arbiter and edge workers when the data has none', () => {
    const minimums = hardwareMinimums('4.19.0', entries);
    expect(minimums.arbiter).toEqual({ cpu_cores: 2, ram_mib: 8192 });
    expect(minimums['edge-worker']).toEqual({ cpu_cores: 2, ram_mib: 8192 });
  });

  it('refuses data without a default entry', () => {
    expect(() => hardwareMinimums('4.19.0', [{ version: '4.19', match_type: 'min_version' }])).toThrow(/default/);
  });
});

describe('preflightRequirements', () => {
  const table: { name: string; cluster: Parameters<typeof preflightRequirements>[0]; master: object; worker: object }[] = [
    { name: 'multi-node cluster', cluster: { openshiftVersion: '4.18.5', controlPlaneCount: 3 }, master: MASTER, worker: WORKER },
    {
      name: 'single node: the master gets the sno minimums',
      cluster: { openshiftVersion: '4.18.5', controlPlaneCount: 1 },
      master: { cpu_cores: 8, ram_mib: 16384, disk_size_gb: 100, installation_disk_speed_threshold_ms: 10 },
      worker: WORKER,
    },
    {
      name: 'single node on 4.22',
      cluster: { openshiftVersion: '4.22.1', controlPlaneCount: 1 },
      master: { cpu_cores: 4, ram_mib: 16384, disk_size_gb: 100, installation_disk_speed_threshold_ms: 10 },
      worker: WORKER,
    },
    {
      name: 'TPM disk encryption on masters',
      cluster: { openshiftVersion: '4.18.5', controlPlaneCount: 3, diskEncryption: { enable_on: 'masters', mode: 'tpmv2' } },
      master: { ...MASTER, tpm_enabled_in_bios: true },
      worker: WORKER,
    },
    {
      name: 'TPM disk encryption on all roles',
      cluster: { openshiftVersion: '4.18.5', controlPlaneCount: 3, diskEncryption: { enable_on: 'all', mode: 'tpmv2' } },
      master: { ...MASTER, tpm_enabled_in_bios: true },
      worker: { ...WORKER, tpm_enabled_in_bios: true },
    },
    {
      name: 'Tang disk encryption needs no TPM',
      cluster: { openshiftVersion: '4.18.5', controlPlaneCount: 3, diskEncryption: { enable_on: 'all', mode: 'tang' } },
      master: MASTER,
      worker: WORKER,
    },
  ];

  it.each(table)('$name', ({ cluster, master, worker }) => {
    const { ocp } = preflightRequirements(cluster);
    // Upstream leaves an empty qualitative list out (null).
    expect(ocp.master).toEqual({ quantitative: master });
    expect(ocp.worker).toEqual({ quantitative: worker });
  });

  it('lists every supported OLM operator, with dependencies and per-role requirements', () => {
    const { operators } = preflightRequirements({ openshiftVersion: '4.18.5', controlPlaneCount: 3 });
    expect(operators.map((o) => o.operator_name)).toEqual(supportedOperatorNames());
    const byName = Object.fromEntries(operators.map((o) => [o.operator_name, o]));
    expect(byName.odf).toMatchObject({
      dependencies: ['lso'],
      requirements: { master: { quantitative: { cpu_cores: 6, ram_mib: 19456 } }, worker: { quantitative: { cpu_cores: 8, ram_mib: 19456 } } },
    });
    expect(byName.lso!.requirements).toEqual({ master: { quantitative: {} }, worker: { quantitative: {} } });
    // Upstream (its service): MCE, MetalLB and OpenShift AI state an empty qualitative list, the others none.
    for (const name of ['mce', 'metallb', 'openshift-ai']) expect(byName[name]!.requirements.master.qualitative).toEqual([]);
    expect(byName.cnv!.requirements.master.quantitative).toEqual({ cpu_cores: 4, ram_mib: 150 });
  });

  it('applies requirement overrides for the cluster shape (CNV on a single node)', () => {
    const cnvOf = (openshiftVersion: string) =>
      preflightRequirements({ openshiftVersion, controlPlaneCount: 1 }).operators.find((o) => o.operator_name === 'cnv')!;
    expect(cnvOf('4.18.5').requirements.master.quantitative).toEqual({ cpu_cores: 6, ram_mib: 510 });
    // Upstream (its service, by curl): the extra disk for the hostpath provisioner only before 4.12.
    expect(cnvOf('4.18.5').requirements.master.qualitative).not.toContain('Additional disk with 50 Gi');
    expect(cnvOf('4.11.3').requirements.master.qualitative).toContain('Additional disk with 50 Gi');
    expect(cnvOf('4.11.3').requirements.master.quantitative).toEqual({ cpu_cores: 6, ram_mib: 510 });
  });

  it('lists no operators for a day-2 (adding hosts) cluster', () => {
    expect(preflightRequirements({ openshiftVersion: '4.18.5', controlPlaneCount: 3, kind: 'AddHostsCluster' }).operators).toEqual([]);
  });

  it('reads the cluster attributes', () => {
    expect(
      preflightClusterOf({ openshift_version: '4.18.5', control_plane_count: 1, kind: 'Cluster', disk_encryption: { enable_on: 'none', mode: 'tpmv2' } }),
    ).toEqual({
      openshiftVersion: '4.18.5',
      controlPlaneCount: 1,
      kind: 'Cluster',
      diskEncryption: { enable_on: 'none', mode: 'tpmv2' },
    });
  });
});
