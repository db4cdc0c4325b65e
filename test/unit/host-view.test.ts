import { describe, expect, it } from 'vitest';
import { applyHostUpdate, bindHost, hostProgressStages, hostView, unbindHost } from '../../lambdas/domain/host/host.js';
import type { Host } from '../../lambdas/domain/core/entities.js';

const host = (attributes: Record<string, unknown>): Host =>
  ({
    orgId: 'o',
    infraEnvId: 'ie',
    hostId: 'h',
    clusterId: 'c',
    status: 'known',
    attributes,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
    version: 1,
  }) as Host;

describe('the host document', () => {
  it("leaves out the service's own bookkeeping and the empty strings upstream omits", () => {
    const view = hostView(
      host({
        cpu_architecture: 'x86_64',
        connectivity_checked_at: 't',
        connectivity_stored_at: 't',
        free_addresses: '[]',
        step_errors: { install: 'failed' },
        skip_formatting_disks: '',
        machine_config_pool_name: '',
        role: 'master',
      }),
      'no-cluster',
    );
    for (const field of [
      'cpu_architecture',
      'connectivity_checked_at',
      'connectivity_stored_at',
      'free_addresses',
      'step_errors',
      'skip_formatting_disks',
      'machine_config_pool_name',
    ]) {
      expect(view).not.toHaveProperty(field);
    }
    expect(view.role).toBe('master');
    expect(hostView(host({ machine_config_pool_name: 'mcp' }), 'no-cluster').machine_config_pool_name).toBe('mcp');
  });

  it("shows Go's zero time for the log and stage times until they are set", () => {
    const view = hostView(host({ logs_collected_at: '2026-11-22T11:00:00.000Z' }), 'no-cluster');
    expect(view).toMatchObject({
      logs_collected_at: '2026-11-22T11:00:00.000Z',
      logs_started_at: '0001-01-01T00:00:00.000Z',
      stage_started_at: '0001-01-01T00:00:00.000Z',
      stage_updated_at: '0001-01-01T00:00:00.000Z',
    });
  });

  it('shows the connectivity report as Go re-serializes it: zero and false figures left out', () => {
    const report = {
      remote_hosts: [
        {
          host_id: 'p',
          l3_connectivity: [{ remote_ip_address: '10.0.0.2', successful: true, packet_loss_percentage: 0, average_rtt_ms: 0.4 }],
          l2_connectivity: [],
          mtu_report: [{ mtu_successful: false, remote_ip: '10.0.0.2' }],
        },
      ],
    };
    expect(JSON.parse(hostView(host({ connectivity: JSON.stringify(report) }), 'no-cluster').connectivity as string)).toEqual({
      remote_hosts: [
        {
          host_id: 'p',
          l3_connectivity: [{ remote_ip_address: '10.0.0.2', successful: true, average_rtt_ms: 0.4 }],
          l2_connectivity: [],
          mtu_report: [{ remote_ip: '10.0.0.2' }],
        },
      ],
    });
    expect(hostView(host({ connectivity: '{' }), 'no-cluster').connectivity).toBe('{');
  });

  it('refuses an ineligible installation disk as upstream does (409), though the stored inventory leaves its false `eligible` out', () => {
    const inventory = JSON.stringify({
      disks: [
        { id: 'sr0', path: '/dev/sr0', installation_eligibility: { not_eligible_reasons: ['Disk is removable'] } },
        { id: 'sda', path: '/dev/sda', installation_eligibility: { eligible: true } },
      ],
    });
    const stored = host({ inventory });
    expect(() => applyHostUpdate(stored, { disks_selected_config: [{ id: 'sr0', role: 'install' }] } as never, undefined, 'now')).toThrow(
      expect.objectContaining({ kind: 'conflict', message: "Requested installation disk is not part of the host's valid disks" }),
    );
    expect(() => applyHostUpdate(stored, { disks_selected_config: [{ id: '/dev/nope', role: 'install' }] } as never, undefined, 'now')).toThrow(
      expect.objectContaining({ kind: 'conflict' }),
    );
    expect(applyHostUpdate(stored, { disks_selected_config: [{ id: 'sda', role: 'install' }] } as never, undefined, 'now').attributes).toMatchObject({
      installation_disk_id: 'sda',
      installation_disk_path: '/dev/sda',
    });
    // Only the install disk counts: a list without one (even empty) is a conflict, two are too.
    expect(() => applyHostUpdate(stored, { disks_selected_config: [] } as never, undefined, 'now')).toThrow(
      expect.objectContaining({ kind: 'conflict', message: "Requested installation disk is not part of the host's valid disks" }),
    );
    expect(() =>
      applyHostUpdate(
        stored,
        {
          disks_selected_config: [
            { id: 'sda', role: 'install' },
            { id: 'sr0', role: 'install' },
          ],
        } as never,
        undefined,
        'now',
      ),
    ).toThrow(expect.objectContaining({ kind: 'conflict', message: 'duplicate setting of installation path by the user' }));
    expect(
      applyHostUpdate(
        stored,
        {
          disks_selected_config: [
            { id: 'sda', role: 'install' },
            { id: '/dev/nope', role: 'none' },
          ],
        } as never,
        undefined,
        'now',
      ).attributes.installation_disk_id,
    ).toBe('sda');
  });
  it('applies disks_skip_formatting to the disks already skipped, as upstream: once each, false removes, unknown disks refused (400)', () => {
    const inventory = JSON.stringify({
      disks: [
        { id: 'sda', path: '/dev/sda' },
        { id: 'sdb', path: '/dev/sdb' },
      ],
    });
    const skip = (stored: Host, changes: { disk_id: string; skip_formatting: boolean }[]) =>
      applyHostUpdate(stored, { disks_skip_formatting: changes } as never, undefined, 'now');
    const once = skip(host({ inventory }), [
      { disk_id: 'sda', skip_formatting: true },
      { disk_id: 'sda', skip_formatting: true },
    ]);
    expect(once.attributes.skip_formatting_disks).toBe('sda');
    expect(skip(once, [{ disk_id: 'sdb', skip_formatting: true }]).attributes.skip_formatting_disks).toBe('sda,sdb');
    expect(skip(once, [{ disk_id: 'sda', skip_formatting: false }]).attributes.skip_formatting_disks).toBe('');
    expect(
      skip(host({ inventory }), [
        { disk_id: 'sda', skip_formatting: true },
        { disk_id: 'sda', skip_formatting: false },
      ]).attributes.skip_formatting_disks,
    ).toBe('');
    expect(() => skip(host({ inventory }), [{ disk_id: '/dev/nope', skip_formatting: true }])).toThrow(
      expect.objectContaining({
        kind: 'bad-request',
        message: "Disk identifier /dev/nope doesn't match any disk in the inventory, it cannot be skipped. Inventory disk identifiers are: sda, sdb",
      }),
    );
  });
  it('gives the arbiter role as upstream: in a day-1 cluster of 4.19+ on baremetal (none from 4.22), whatever its control plane count', () => {
    const cluster = (attributes: Record<string, unknown>) =>
      ({ clusterId: 'c', attributes: { control_plane_count: 3, platform: { type: 'baremetal' }, ...attributes } }) as never;
    const role = (attributes: Record<string, unknown>) =>
      applyHostUpdate(host({}), { host_role: 'arbiter' } as never, cluster(attributes), 'now').attributes.role;
    expect(role({ openshift_version: '4.22.9' })).toBe('arbiter');
    expect(role({ openshift_version: '4.22.9', platform: { type: 'none' } })).toBe('arbiter');
    expect(() => role({ openshift_version: '4.21.3', platform: { type: 'none' } })).toThrow(
      expect.objectContaining({ kind: 'bad-request', message: "Cannot set role arbiter to host h in infra-env ie: cluster's platform must be baremetal" }),
    );
    expect(() => role({ openshift_version: '4.18.52' })).toThrow(
      expect.objectContaining({ message: "Cannot set role arbiter to host h in infra-env ie: cluster's openshift version must be at least 4.19" }),
    );
    expect(() => role({ openshift_version: '4.22.9', platform: { type: 'vsphere' } })).toThrow(
      expect.objectContaining({ message: expect.stringContaining('must be baremetal or none') }),
    );
  });
  it("binds and unbinds a pool host as upstream: the inventory is reported again, the role is auto-assign, a single node's unassigned host has no stages", () => {
    const pool = {
      ...host({ inventory: '{"hostname":"node-0"}', role: 'auto-assign', suggested_role: 'auto-assign', bootstrap: true, images_status: '{}' }),
      clusterId: undefined,
      status: 'known-unbound',
    } as Host;
    const cluster = { clusterId: 'c', status: 'pending-for-input', attributes: { control_plane_count: 1 } } as never;
    const bound = bindHost(pool, cluster, undefined, '2026-11-22T11:00:00.000Z').host;
    expect(bound.attributes).toMatchObject({ role: 'auto-assign', suggested_role: 'auto-assign' });
    for (const field of ['inventory', 'bootstrap', 'images_status']) expect(bound.attributes).not.toHaveProperty(field);
    expect(hostProgressStages(bound, { singleNode: true })).toEqual([]);
    expect(hostProgressStages({ ...bound, attributes: { ...bound.attributes, role: 'master' } }, { singleNode: true })).toContain('Waiting for bootkube');
    const unbound = unbindHost(
      { ...bound, status: 'known', attributes: { ...bound.attributes, inventory: '{}', role: 'master', suggested_role: 'master' } },
      undefined,
      '2026-11-22T11:00:00.000Z',
    ).host;
    expect(unbound.attributes).toMatchObject({ role: 'auto-assign', suggested_role: 'auto-assign' });
    expect(unbound.attributes).not.toHaveProperty('inventory');
  });
  it("stores fencing credentials write-only, in a day-1 cluster of 4.20+ on baremetal or none (upstream's ValidateClusterSupportsFencingCredentials)", () => {
    const credentials = { address: 'https://bmc0.example.com', username: 'admin', password: 'secret' };
    const cluster = (attributes: Record<string, unknown>) =>
      ({ clusterId: 'c', attributes: { control_plane_count: 2, platform: { type: 'baremetal' }, ...attributes } }) as never;
    const updated = applyHostUpdate(host({}), { fencing_credentials: credentials } as never, cluster({ openshift_version: '4.20.33' }), 'now');
    expect(JSON.parse(updated.attributes.fencing_credentials as string)).toEqual(credentials);
    expect(hostView(updated, 'no-cluster')).not.toHaveProperty('fencing_credentials');
    expect(() => applyHostUpdate(host({}), { fencing_credentials: credentials } as never, cluster({ openshift_version: '4.19.42' }), 'now')).toThrow(
      expect.objectContaining({
        kind: 'bad-request',
        message: "Cannot set fencing credentials to host h in infra-env ie: cluster's openshift version must be at least 4.20",
      }),
    );
  });
});
