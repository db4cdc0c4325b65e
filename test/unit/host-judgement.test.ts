/**
 * The verdict on a host, reached directly in the domain (domain/judgement/host-judgement.ts): no
 * store, no runtime. The fixture hosts are host-validation-lab's: a healthy five-host cluster and
 * machines that fail it in one way each.
 */
import { describe, expect, it } from 'vitest';
import type { Host } from '../../lambdas/domain/core/entities.js';
import {
  applyHostJudgement,
  blockingValidations,
  hostJudgementEvents,
  judgeHost,
  monitorShardOf,
  wouldSucceedWithoutHost,
  type HostJudgement,
} from '../../lambdas/domain/judgement/host-judgement.js';
import { HEALTHY, hostRecord, iso, NOW, world, type MachineName, type World } from '../support/host-validation-lab.js';

const SHARDS = 4;

/** The world's hosts as records, the one named as the subject of the judgement. */
function hostsOf(w: World, target: MachineName): { host: Host; hosts: Host[] } {
  const names = Object.keys(w.attributes) as MachineName[];
  const hosts = names.map((name, index) => hostRecord(w, name, index));
  return { host: hosts[names.indexOf(target)]!, hosts };
}

function judged(w: World, target: MachineName, change: (host: Host) => void = () => undefined): { host: Host; judgement: HostJudgement } {
  const { host, hosts } = hostsOf(w, target);
  change(host);
  return { host, judgement: judgeHost(host, { cluster: w.cluster!, clusterHosts: hosts, infraEnv: w.infraEnv }, { now: NOW, activeShards: SHARDS }) };
}

describe('why a host is insufficient', () => {
  it('finds nothing holding back a healthy master: it stays known, and is written with its validations', () => {
    const { host, judgement } = judged(world(), 'master-0');
    expect(blockingValidations(judgement, world().cluster)).toEqual([]);
    // It stays known; only its status_info, never written by this fixture, is set.
    expect(judgement.move).toMatchObject({ status: 'known', statusInfo: 'Host is ready to be installed' });
    expect(judgement.unchanged).toBe(false);
    const written = applyHostJudgement(host, judgement, NOW.toISOString(), SHARDS)!;
    expect(written.status).toBe('known');
    expect(JSON.parse(written.attributes.validations_info as string)).toHaveProperty('hardware');
    // Judged again as written, nothing changes.
    const again = judgeHost(
      written,
      { cluster: world().cluster!, clusterHosts: hostsOf(world(), 'master-0').hosts, infraEnv: world().infraEnv },
      { now: NOW, activeShards: SHARDS },
    );
    expect(again.unchanged).toBe(true);
  });

  it.each<[MachineName, string, RegExp]>([
    ['undersized', 'has-cpu-cores-for-role', /CPU cores/],
    ['undersized', 'has-memory-for-role', /GiB RAM for role worker/],
    ['no-eligible-disk', 'has-min-valid-disks', /disk/i],
    ['ipv6-only', 'belongs-to-machine-cidr', /does not belong to machine network/],
  ])('moves %s from known to insufficient, blocked by %s with a one-line reason', (machine, id, reason) => {
    const w = world([...HEALTHY, machine]);
    const { host, judgement } = judged(w, machine);
    const blocking = blockingValidations(judgement, w.cluster);
    const blocker = blocking.find((entry) => entry.id === id);
    expect(blocker?.reason).toMatch(reason);
    for (const entry of blocking) expect(entry.reason).toMatch(/^[^\n]+$/);
    expect(judgement.move?.status).toBe('insufficient');
    expect(judgement.move?.statusInfo).toContain(blocker!.reason);
    const written = applyHostJudgement(host, judgement, NOW.toISOString(), SHARDS)!;
    expect(written).toMatchObject({ status: 'insufficient', attributes: { status_info: judgement.move!.statusInfo, status_updated_at: NOW.toISOString() } });
    expect(hostJudgementEvents(host, judgement).map((event) => event.name)).toContain('host_status_updated');
  });

  it('leaves out what the cluster ignores: the host is known again, though the failure is still recorded', () => {
    const w = world([...HEALTHY, 'ipv6-only']);
    w.cluster!.attributes.ignored_host_validations = JSON.stringify(['belongs-to-machine-cidr']);
    const { judgement } = judged(w, 'ipv6-only');
    expect(blockingValidations(judgement, w.cluster).map((entry) => entry.id)).not.toContain('belongs-to-machine-cidr');
    expect(judgement.results.find((result) => result.id === 'belongs-to-machine-cidr')?.status).toBe('failure');
  });

  it('tells of a validation that used to succeed and now fails, and of it being fixed', () => {
    const w = world();
    const { host, judgement } = judged(w, 'master-0');
    const written = applyHostJudgement(host, judgement, NOW.toISOString(), SHARDS)!;
    written.attributes.media_status = 'disconnected';
    const failed = judgeHost(
      written,
      { cluster: w.cluster!, clusterHosts: hostsOf(w, 'master-0').hosts, infraEnv: w.infraEnv },
      { now: NOW, activeShards: SHARDS },
    );
    expect(hostJudgementEvents(written, failed)).toContainEqual({
      name: 'host_validation_failed',
      props: { host_name: expect.any(String), validation_id: 'media-connected', failure_message: 'that used to succeed is now failing' },
    });
    const broken = applyHostJudgement(written, failed, NOW.toISOString(), SHARDS)!;
    broken.attributes.media_status = 'connected';
    const fixed = judgeHost(
      broken,
      { cluster: w.cluster!, clusterHosts: hostsOf(w, 'master-0').hosts, infraEnv: w.infraEnv },
      { now: NOW, activeShards: SHARDS },
    );
    expect(hostJudgementEvents(broken, fixed).map((event) => [event.name, event.props.validation_id])).toContainEqual([
      'host_validation_fixed',
      'media-connected',
    ]);
  });
});

describe('the role an auto-assign host is suggested', () => {
  it('follows the cluster while the host is being discovered, and is told of', () => {
    const w = world();
    for (const name of HEALTHY) Object.assign(w.attributes[name]!, { role: 'auto-assign', suggested_role: 'auto-assign' });
    const { host, judgement } = judged(w, 'master-0');
    expect(judgement.suggestedRole).toBe('master');
    expect(applyHostJudgement(host, judgement, NOW.toISOString(), SHARDS)!.attributes.suggested_role).toBe('master');
    expect(hostJudgementEvents(host, judgement)).toContainEqual({
      name: 'host_role_updated',
      props: { host_name: expect.any(String), suggested_role: 'master' },
    });
  });

  it('stands once the installation prepares', () => {
    const w = world();
    for (const name of HEALTHY) Object.assign(w.attributes[name]!, { role: 'auto-assign', suggested_role: 'auto-assign' });
    const { judgement } = judged(w, 'master-0', (host) => (host.status = 'preparing-for-installation'));
    expect(judgement.suggestedRole).toBeUndefined();
  });
});

describe('the pending-user-action give-up rule', () => {
  /** Three masters and one worker installing; `pending` waits on its user since an hour and a minute. */
  function installing(pending: MachineName, installed: readonly MachineName[]): { host: Host; hosts: Host[]; w: World } {
    const w = world(['master-0', 'master-1', 'master-2', 'worker-0']);
    w.cluster!.status = 'installing';
    const { hosts } = hostsOf(w, pending);
    for (const host of hosts) host.status = installed.some((name) => hostRecord(w, name, 0).hostId === host.hostId) ? 'installed' : 'installing-in-progress';
    const host = hosts.find((candidate) => candidate.hostId === hostRecord(w, pending, 0).hostId)!;
    host.status = 'installing-pending-user-action';
    host.attributes.status_updated_at = iso(61 * 60_000);
    return { host, hosts, w };
  }

  it('gives up on a worker after an hour when the installed masters are enough without it', () => {
    const { host, hosts, w } = installing('worker-0', ['master-0', 'master-1', 'master-2']);
    expect(wouldSucceedWithoutHost(host, w.cluster!, hosts)).toBe(true);
    const judgement = judgeHost(host, { cluster: w.cluster!, clusterHosts: hosts, infraEnv: w.infraEnv }, { now: NOW, activeShards: SHARDS });
    expect(judgement.move?.status).toBe('error');
    expect(judgement.move?.ruleId).toBe('refresh-pending-user-action-timeout');
  });

  it('keeps waiting while the cluster still needs a master that is not installed', () => {
    const { host, hosts, w } = installing('worker-0', ['master-0', 'master-1']);
    expect(wouldSucceedWithoutHost(host, w.cluster!, hosts)).toBe(false);
    const judgement = judgeHost(host, { cluster: w.cluster!, clusterHosts: hosts, infraEnv: w.infraEnv }, { now: NOW, activeShards: SHARDS });
    expect(judgement.move?.status ?? host.status).toBe('installing-pending-user-action');
  });

  it('never gives up on a master: the cluster cannot succeed without it', () => {
    const { host, hosts, w } = installing('master-2', ['master-0', 'master-1', 'worker-0']);
    expect(wouldSucceedWithoutHost(host, w.cluster!, hosts)).toBe(false);
  });

  it('keeps waiting before the hour is up', () => {
    const { host, hosts, w } = installing('worker-0', ['master-0', 'master-1', 'master-2']);
    host.attributes.status_updated_at = iso(59 * 60_000);
    const judgement = judgeHost(host, { cluster: w.cluster!, clusterHosts: hosts, infraEnv: w.infraEnv }, { now: NOW, activeShards: SHARDS });
    expect(judgement.move?.status ?? host.status).toBe('installing-pending-user-action');
  });
});

describe('the monitor shard of a judged host', () => {
  it('is kept while the host is watched and dropped once it settles', () => {
    const { host, judgement } = judged(world(), 'master-0');
    expect(judgement.shard).toBe(monitorShardOf(host.hostId, SHARDS));
    const written = applyHostJudgement(host, judgement, NOW.toISOString(), SHARDS)!;
    expect(written.monitorShard).toBe(judgement.shard);
    const installed: Host = { ...written, status: 'installed' };
    const settled = judgeHost(
      installed,
      { cluster: { ...world().cluster!, status: 'installed' }, clusterHosts: [], infraEnv: world().infraEnv },
      { now: NOW, activeShards: SHARDS },
    );
    expect(settled.shard).toBeUndefined();
    expect(applyHostJudgement(installed, settled, NOW.toISOString(), SHARDS)?.monitorShard).toBeUndefined();
  });
});
