/**
 * A host's `progress` and `progress_stages` as upstream sends them (issue 45): no false
 * `stage_timed_out` (the UI warns whenever the field is there), the stage's times always (Go's zero
 * time before the first report), no empty info or zero percentage, no false `bootstrap`; and the
 * stages of the host's role, which the UI counts through ("Installing 3/8"). The expected lists are
 * upstream's own answers, recorded in test/fixtures/upstream-host-progress.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Host } from '../../lambdas/domain/core/entities.js';
import { hostProgressStages, hostProgressView, hostView } from '../../lambdas/domain/host/host.js';
import { applyHostProgress } from '../../lambdas/domain/install/installation-progress.js';

const NOW = new Date('2026-11-29T06:31:15.000Z');
const ZERO = '0001-01-01T00:00:00.000Z';

interface UpstreamRecord {
  role: string;
  bootstrap: boolean;
  progress_stages: string[];
}
const upstream = (name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/upstream-host-progress', `${name}.json`), 'utf8')) as {
    records: UpstreamRecord[];
    before_stages?: { role: string; progress_stages: string[] }[];
  };
const ha = upstream('ha');
const sno = upstream('sno');
const upstreamStages = (records: UpstreamRecord[], role: string, bootstrap: boolean) =>
  records.find((r) => r.role === role && r.bootstrap === bootstrap)!.progress_stages;

function host(attributes: Record<string, unknown> = {}, status: Host['status'] = 'installing'): Host {
  return {
    orgId: 'org',
    infraEnvId: '22222222-2222-4222-8222-222222222222',
    hostId: '33333333-3333-4333-8333-333333333333',
    clusterId: '11111111-1111-4111-8111-111111111111',
    status,
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    version: 1,
    attributes: { role: 'master', requested_hostname: 'master-0', ...attributes },
  };
}

describe('host progress as upstream sends it', () => {
  it("stores no stage_timed_out when a stage starts, and a new stage clears the previous stage's mark", () => {
    const started = applyHostProgress(host(), { status: 'installing', singleNode: false }, { stage: 'Starting installation' }, NOW).host;
    expect(started.attributes.progress).not.toHaveProperty('stage_timed_out');

    const overdue = { ...started, attributes: { ...started.attributes, progress: { ...started.attributes.progress, stage_timed_out: true } } };
    const moreInfo = applyHostProgress(overdue, { status: 'installing', singleNode: false }, { stage: 'Starting installation', info: 'still going' }, NOW).host;
    expect(moreInfo.attributes.progress?.stage_timed_out).toBe(true);
    const next = applyHostProgress(moreInfo, { status: 'installing', singleNode: false }, { stage: 'Installing' }, NOW).host;
    expect(next.attributes.progress).not.toHaveProperty('stage_timed_out');
  });

  it('sends the stage times always, zero before the first report, and leaves out what is unset, empty, zero or false', () => {
    expect(hostProgressView(undefined)).toEqual({ stage_started_at: ZERO, stage_updated_at: ZERO });
    expect(
      hostProgressView({
        current_stage: 'Installing',
        installation_percentage: 25,
        progress_info: '',
        stage_timed_out: false,
        stage_started_at: NOW.toISOString(),
        stage_updated_at: NOW.toISOString(),
      }),
    ).toEqual({ current_stage: 'Installing', installation_percentage: 25, stage_started_at: NOW.toISOString(), stage_updated_at: NOW.toISOString() });
    expect(
      hostProgressView({
        current_stage: 'Rebooting',
        installation_percentage: 62,
        progress_info: 'waiting',
        stage_timed_out: true,
        stage_started_at: NOW.toISOString(),
        stage_updated_at: NOW.toISOString(),
      }),
    ).toEqual({
      current_stage: 'Rebooting',
      installation_percentage: 62,
      progress_info: 'waiting',
      stage_timed_out: true,
      stage_started_at: NOW.toISOString(),
      stage_updated_at: NOW.toISOString(),
    });
  });

  it('puts the view in the host document, without a false bootstrap', () => {
    const view = hostView(host({ bootstrap: false, progress: { current_stage: 'Installing', stage_timed_out: false, progress_info: '' } }), {
      singleNode: false,
    });
    expect(view).not.toHaveProperty('bootstrap');
    expect(view.progress).toEqual({ current_stage: 'Installing', stage_started_at: ZERO, stage_updated_at: ZERO });
    expect(hostView(host({ bootstrap: true }), { singleNode: false }).bootstrap).toBe(true);
    expect(hostView(host({ role: 'auto-assign' }, 'known'), { singleNode: false }).progress).toEqual({ stage_started_at: ZERO, stage_updated_at: ZERO });
  });
});

describe("progress_stages: the stages of the host's role, as upstream lists them", () => {
  const cluster = { singleNode: false };

  it("lists the bootstrap host's, a control plane node's and a worker's stages as upstream did", () => {
    expect(hostProgressStages(host({ role: 'master', bootstrap: true }), cluster)).toEqual(upstreamStages(ha.records, 'master', true));
    expect(hostProgressStages(host({ role: 'master' }), cluster)).toEqual(upstreamStages(ha.records, 'master', false));
    expect(hostProgressStages(host({ role: 'worker' }), cluster)).toEqual(upstreamStages(ha.records, 'worker', false));
    expect(upstreamStages(ha.records, 'master', true)).toHaveLength(11);
    expect(upstreamStages(ha.records, 'master', false)).toHaveLength(8);
    expect(upstreamStages(ha.records, 'worker', false)).toHaveLength(9);
  });

  it("lists a single node's stages as upstream did", () => {
    const single = upstreamStages(sno.records, 'master', true);
    expect(single).toHaveLength(8);
    expect(hostProgressStages(host({ role: 'master', bootstrap: true }), { singleNode: true })).toEqual(single);
  });

  it("lists an arbiter with a control plane node's stages (it joins etcd's quorum)", () => {
    expect(hostProgressStages(host({ role: 'arbiter' }), cluster)).toEqual(upstreamStages(ha.records, 'master', false));
  });

  it("ends a day-2 host's stages at Rebooting: the new cluster, not the service, sees it join", () => {
    const worker = upstreamStages(ha.records, 'worker', false);
    expect(hostProgressStages(host({ role: 'worker', kind: 'AddToExistingClusterHost' }), cluster)).toEqual(worker.slice(0, worker.indexOf('Rebooting') + 1));
  });

  it('is empty for a host without a role yet, and null where upstream does not list stages', () => {
    expect(hostProgressStages(host({ role: 'auto-assign' }, 'known'), cluster)).toEqual([]);
    expect(ha.before_stages![0]!.progress_stages).toEqual([]);
    expect(hostProgressStages(host({ role: 'worker' }), 'not-listed')).toBeNull();
  });

  it("lists a single node's host as upstream's infra-env listing does: as if it had no cluster", () => {
    expect(hostProgressStages(host({ role: 'master', bootstrap: true }), 'no-cluster')).toEqual(upstreamStages(ha.records, 'master', true));
  });
});
