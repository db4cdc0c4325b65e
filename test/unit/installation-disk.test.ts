/**
 * The installation disk and the disks formatted by default as upstream stores them on the host
 * (its updateInventory): chosen when the inventory arrives, judged anew after a host or cluster
 * update; and the name the host document answers with (requested_hostname).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyStepReply } from '../../lambdas/domain/agent/step-replies.js';
import type { Cluster, Host } from '../../lambdas/domain/core/entities.js';
import { applyHostUpdate, hostChangeAnswer, hostView } from '../../lambdas/domain/host/host.js';
import { disksToBeFormatted, withRefreshedInventory } from '../../lambdas/domain/host/installation-disk.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/inventories/${name}.json`, import.meta.url), 'utf8')) as Record<string, any>;
const NOW = '2026-11-29T09:00:00.000Z';
const WWN = '/dev/disk/by-id/wwn-0x5000c5008e3d0a10';

const cluster = (attributes: Record<string, unknown> = {}): Cluster => ({
  orgId: 'o',
  clusterId: 'c1',
  name: 'demo',
  status: 'insufficient',
  createdAt: NOW,
  updatedAt: NOW,
  version: 1,
  attributes: { openshift_version: '4.19.42', control_plane_count: 3, ...attributes },
});
const newHost = (attributes: Record<string, unknown> = {}): Host => ({
  orgId: 'o',
  infraEnvId: 'i',
  hostId: '0f0f0f0f-0000-4000-8000-000000000001',
  clusterId: 'c1',
  status: 'insufficient',
  createdAt: NOW,
  updatedAt: NOW,
  version: 1,
  attributes: { role: 'auto-assign', ...attributes },
});
const withInventory = (host: Host, inventory: unknown, from = cluster()): Host =>
  applyStepReply(host, { step_type: 'inventory', step_id: 'inventory-1', output: JSON.stringify(inventory) }, { now: NOW, disks: { cluster: from } })!;
const storedDisks = (host: Host) =>
  (JSON.parse(host.attributes.inventory as string) as { disks: { name: string; installation_eligibility: { not_eligible_reasons?: string[] } }[] }).disks;

describe('the installation disk upstream stores on the host', () => {
  it('is chosen when the inventory arrives: the preferred eligible disk, with the disks formatted by default', () => {
    const host = withInventory(newHost(), fixture('master-0'));
    expect(host.attributes).toMatchObject({ installation_disk_id: WWN, installation_disk_path: '/dev/sda', disks_to_be_formatted: WWN });
  });

  it('prefers the bootable disk, and formats only bootable, fixed, non-media disks', () => {
    const inventory = fixture('worker-0');
    const host = withInventory(newHost(), inventory);
    expect(host.attributes.installation_disk_path).toBe('/dev/sda');
    expect(disksToBeFormatted(inventory)).toEqual([inventory.disks[0].id]);
  });

  it('is absent when no disk is eligible', () => {
    const host = withInventory(newHost(), fixture('no-eligible-disk'));
    expect(host.attributes.installation_disk_id).toBeUndefined();
    expect(host.attributes.installation_disk_path).toBeUndefined();
    // sda is bootable and fixed: it is still formatted by default.
    expect(host.attributes.disks_to_be_formatted).toBe(fixture('no-eligible-disk').disks[0].id);
  });

  it("judges the disks for the effective role: an arbiter needs 50 GB, not the worker's 100", () => {
    const discovered = withInventory(newHost(), fixture('master-0'));
    expect(storedDisks(discovered)[1]!.installation_eligibility.not_eligible_reasons).toContain(
      'Disk is too small (disk only has 1.167 GB, but 100 GB are required)',
    );
    const twoNodes = cluster({ control_plane_count: 2, platform: { type: 'baremetal' } });
    const arbiter = withRefreshedInventory(applyHostUpdate(discovered, { host_role: 'arbiter' }, twoNodes, NOW), { cluster: twoNodes });
    expect(storedDisks(arbiter)[1]!.installation_eligibility.not_eligible_reasons).toContain(
      'Disk is too small (disk only has 1.167 GB, but 50 GB are required)',
    );
  });

  it("after a user's update, judges them for the role the host had before it, as upstream", () => {
    const twoNodes = cluster({ control_plane_count: 2 });
    const arbiter = withRefreshedInventory(
      {
        ...withInventory(newHost(), fixture('master-0')),
        attributes: { ...withInventory(newHost(), fixture('master-0')).attributes, suggested_role: 'arbiter' },
      },
      { cluster: twoNodes },
    );
    const master = withRefreshedInventory(applyHostUpdate(arbiter, { host_role: 'master' }, twoNodes, NOW), { cluster: twoNodes }, arbiter);
    expect(storedDisks(master)[1]!.installation_eligibility.not_eligible_reasons).toContain(
      'Disk is too small (disk only has 1.167 GB, but 50 GB are required)',
    );
  });

  it("keeps the user's eligible choice, and falls back to the preferred disk once it is no longer eligible", () => {
    const inventory = fixture('worker-0');
    const discovered = withInventory(newHost(), inventory);
    const chosen = withRefreshedInventory(
      applyHostUpdate(discovered, { disks_selected_config: [{ id: inventory.disks[1].id, role: 'install' }] }, cluster(), NOW),
      { cluster: cluster() },
    );
    expect(chosen.attributes).toMatchObject({ installation_disk_id: inventory.disks[1].id, installation_disk_path: '/dev/sdb' });
    // A release whose minimum no longer fits sdb (200 GB) would drop it: simulate with a smaller disk.
    inventory.disks[1].size_bytes = 50e9;
    const shrunk = withRefreshedInventory({ ...chosen, attributes: { ...chosen.attributes, inventory: JSON.stringify(inventory) } }, { cluster: cluster() });
    expect(shrunk.attributes.installation_disk_path).toBe('/dev/sda');
  });

  it('leaves a host past the states upstream refreshes in as it is', () => {
    const installing = { ...withInventory(newHost(), fixture('master-0')), status: 'installing' as const };
    expect(withRefreshedInventory(installing, { cluster: cluster({ control_plane_count: 2 }) })).toBe(installing);
  });
});

describe('the ignition endpoint token', () => {
  it('is kept out of the host document, which says whether one is set', () => {
    const host = withInventory(newHost(), fixture('master-0'));
    const set = applyHostUpdate(host, { ignition_endpoint_token: 'secret' }, cluster(), NOW);
    expect(hostView(set, 'not-listed')).toMatchObject({ ignition_endpoint_token_set: true });
    expect(hostView(set, 'not-listed')).not.toHaveProperty('ignition_endpoint_token');
    expect(hostView(applyHostUpdate(set, { ignition_endpoint_token: '' }, cluster(), NOW), 'not-listed')).not.toHaveProperty('ignition_endpoint_token_set');
  });
});

describe("the answer to a user's change of a host", () => {
  it("carries the free addresses the agent reported, which the host's other answers leave out", () => {
    const free = JSON.stringify([{ network: '192.168.111.0/24', free_addresses: ['192.168.111.100'] }]);
    const host = { ...newHost(), attributes: { ...newHost().attributes, free_addresses: free } };
    expect(hostChangeAnswer(host, { singleNode: false }).free_addresses).toBe(free);
    expect(hostView(host, { singleNode: false })).not.toHaveProperty('free_addresses');
  });
});

describe('requested_hostname in the host document', () => {
  it('is the given name, else the reported one, else the host id, where upstream lists the stages', () => {
    const registered = newHost();
    expect(hostView(registered, { singleNode: false }).requested_hostname).toBe(registered.hostId);
    const discovered = withInventory(registered, { ...fixture('master-0'), hostname: 'node-0' });
    expect(hostView(discovered, 'no-cluster').requested_hostname).toBe('node-0');
    const renamed = applyHostUpdate(discovered, { host_name: 'renamed-0' }, cluster(), NOW);
    expect(hostView(renamed, { singleNode: false }).requested_hostname).toBe('renamed-0');
  });

  it("is only the stored one where upstream does not list the stages (the cluster's host listing, bind, install)", () => {
    const discovered = withInventory(newHost(), { ...fixture('master-0'), hostname: 'node-0' });
    expect(hostView(discovered, 'not-listed').requested_hostname).toBeUndefined();
  });
});
