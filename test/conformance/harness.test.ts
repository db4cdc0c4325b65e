/** The harness's own machinery, without services: normalization, field-path comparison, the compatibility table, generated requests. */
import { describe, expect, it } from 'vitest';
import { compareValues } from './compare.js';
import { acceptingRow, loadCompatibilityTable, parseCompatibilityTable } from './compatibility.js';
import { generatedCases, rewrittenByFirstJudgement, upstreamFirstJudgement } from './generated.js';
import { normalize, normalizeInstallConfig, Placeholders } from './normalize.js';
import { Recorder } from './report.js';
import { againstOpenDifferences, loadOpenDifferences, openDifferenceKey } from './open-differences.js';
import { allScenarios } from './scenarios/index.js';
import type { Answer, ServiceEndpoint, Side } from './client.js';
import { clusterJudged, substitute, MissingVariable } from './scenario.js';
import { newSideStates, waitOnBothSides, type Harness } from './runner.js';
import { clusterWithInfraEnv } from './scenarios/common.js';

describe('normalize', () => {
  it('maps ids to placeholders, named ones first, others by first appearance; times, URLs and tokens to markers', () => {
    const ours = new Placeholders();
    const upstream = new Placeholders();
    ours.name('11111111-1111-4111-8111-111111111111', 'cluster');
    upstream.name('22222222-2222-4222-8222-222222222222', 'cluster');
    const a = normalize(
      {
        id: '11111111-1111-4111-8111-111111111111',
        href: '/api/assisted-install/v2/clusters/11111111-1111-4111-8111-111111111111',
        other: 'aaaaaaaa-1111-4111-8111-111111111111',
        created_at: '2026-01-01T00:00:00.123Z',
        zero: '0001-01-01T00:00:00Z',
        url: 'http://127.0.0.1:4242/x?image_token=abc&y=1',
        step_id: 'inventory-0a1b2c3d',
      },
      ours,
    );
    const b = normalize(
      {
        id: '22222222-2222-4222-8222-222222222222',
        href: '/api/assisted-install/v2/clusters/22222222-2222-4222-8222-222222222222',
        other: 'bbbbbbbb-1111-4111-8111-111111111111',
        created_at: '2025-05-05T10:00:00Z',
        zero: '0001-01-01T00:00:00.000Z',
        url: 'http://127.0.0.1:999/x?image_token=zzz&y=1',
        step_id: 'inventory-ffffffff',
      },
      upstream,
    );
    expect(a).toEqual(b);
    expect(a).toMatchObject({
      id: '<cluster>',
      other: '<id#1>',
      created_at: '<time>',
      zero: '<zero-time>',
      url: '<service>/x?image_token=<secret>&y=1',
      step_id: 'inventory-<random>',
    });
  });

  it("reads a discovery image URL, ours or upstream's, as the image it names", () => {
    const ours = new Placeholders();
    const upstream = new Placeholders();
    ours.name('11111111-1111-4111-8111-111111111111', 'infraEnv');
    upstream.name('22222222-2222-4222-8222-222222222222', 'infraEnv');
    const a = normalize(
      {
        url: 'http://127.0.0.1:4242/api/assisted-images/images/11111111-1111-4111-8111-111111111111?arch=arm64&image_token=eyJ.x.y&type=minimal-iso&version=4.18',
      },
      ours,
    );
    const b = normalize({ url: 'http://127.0.0.1:999/byid/22222222-2222-4222-8222-222222222222/4.18/arm64/minimal.iso' }, upstream);
    expect(a).toEqual({ url: '<discovery image <infraEnv> version=4.18 arch=arm64 type=minimal-iso>' });
    expect(b).toEqual(a);
    expect(normalize({ url: 'http://127.0.0.1:999/byid/22222222-2222-4222-8222-222222222222/5.0/arm64/minimal.iso' }, upstream)).not.toEqual(a);
  });

  it('parses JSON held in string fields and install-config YAML', () => {
    const ids = new Placeholders();
    expect(normalize({ validations_info: '{"network":[{"id":"a","status":"success"}]}', name: '{not json' }, ids)).toEqual({
      validations_info: { network: [{ id: 'a', status: 'success' }] },
      name: '{not json',
    });
    expect(normalizeInstallConfig('apiVersion: v1\nbaseDomain: example.com\n', ids)).toEqual({ apiVersion: 'v1', baseDomain: 'example.com' });
  });

  it("compares a status_info naming only waiting checks as upstream's empty list, and nothing else", () => {
    const ids = new Placeholders();
    const held = 'Host cannot be installed due to following failing validation(s): ';
    expect(normalize({ status_info: `${held}Missing host time (waiting for a result) ; No NTP (waiting for a result)` }, ids)).toEqual({ status_info: held });
    expect(normalize({ status_info: held }, ids)).toEqual({ status_info: held });
    // A real failure, alone or beside a waiting check, is compared as written.
    expect(normalize({ status_info: `${held}Disk too small` }, ids)).toEqual({ status_info: `${held}Disk too small` });
    expect(normalize({ status_info: `${held}Disk too small ; No NTP (waiting for a result)` }, ids)).not.toEqual({ status_info: held });
  });
});

describe('compareValues', () => {
  it('reports field paths with both values; null and absent are the same; empty containers are not', () => {
    expect(compareValues({ a: 1, b: null, c: [], d: { e: 'x' } }, { a: 2, d: { e: 'x', f: true } })).toEqual([
      { path: 'a', kind: 'value', ours: 1, upstream: 2 },
      { path: 'c', kind: 'only ours', ours: [] },
      { path: 'd.f', kind: 'only upstream', upstream: true },
    ]);
  });

  it('compares unordered arrays by identity, as sets or sorted; ordered ones by position', () => {
    expect(
      compareValues(
        {
          ops: [
            { name: 'a', v: 1 },
            { name: 'b', v: 2 },
          ],
        },
        {
          ops: [
            { name: 'b', v: 3 },
            { name: 'a', v: 1 },
          ],
        },
      ),
    ).toEqual([{ path: 'ops[b].v', kind: 'value', ours: 2, upstream: 3 }]);
    expect(compareValues({ tags: ['x', 'y'] }, { tags: ['y', 'z'] })).toEqual([
      { path: 'tags[]', kind: 'only ours', ours: 'x' },
      { path: 'tags[]', kind: 'only upstream', upstream: 'z' },
    ]);
    expect(compareValues({ api_vips: [{ ip: '1' }, { ip: '2' }] }, { api_vips: [{ ip: '2' }, { ip: '1' }] })).toHaveLength(2);
  });
});

describe('docs/compatibility.md', () => {
  it('parses, and every row has a reason', () => {
    const rows = loadCompatibilityTable();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.reason.length, row.id).toBeGreaterThan(20);
  });

  it('matches a difference by operation, path glob and kind, and only those', () => {
    const rows = parseCompatibilityTable(
      '## Deliberate differences\n\n| id | operation | path | difference | reason |\n|---|---|---|---|---|\n| r1 | v2GetCluster, V2* | hosts[*].org_id | only ours | organisations exist only here |\n| r2 | * | **.user_name | value | tokens name their user differently |\n',
    );
    expect(acceptingRow(rows, 'v2GetCluster', { path: 'hosts[<host0>].org_id', kind: 'only ours' })?.id).toBe('r1');
    expect(acceptingRow(rows, 'V2UpdateCluster', { path: 'hosts[<host0>].org_id', kind: 'only ours' })?.id).toBe('r1');
    expect(acceptingRow(rows, 'v2GetCluster', { path: 'hosts[<host0>].org_id', kind: 'value' })).toBeUndefined();
    expect(acceptingRow(rows, 'v2GetCluster', { path: 'hosts[<host0>].x.org_id', kind: 'only ours' })).toBeUndefined();
    expect(acceptingRow(rows, 'anything', { path: 'a.b.user_name', kind: 'value' })?.id).toBe('r2');
    const statusRows = parseCompatibilityTable(
      '## Deliberate differences\n\n| id | operation | path | difference | reason |\n|---|---|---|---|---|\n| s1 | V2GetBundle | (status ours 404, upstream 500) | status | a named upstream bug answering 500 |\n',
    );
    expect(acceptingRow(statusRows, 'V2GetBundle', { path: '(status ours 404, upstream 500)', kind: 'status' })?.id).toBe('s1');
    expect(acceptingRow(statusRows, 'V2GetBundle', { path: '(status ours 200, upstream 500)', kind: 'status' })).toBeUndefined();
    expect(() =>
      parseCompatibilityTable(
        '## Deliberate differences\n\n| id | operation | path | difference | reason |\n|---|---|---|---|---|\n| r3 | * | x | value |  |\n',
      ),
    ).toThrow(/reason|5 cells/);
  });

  it('matches a row with a request condition only for requests whose body holds one of its values', () => {
    const rows = parseCompatibilityTable(
      '## Deliberate differences\n\n| id | operation | path | difference | reason |\n|---|---|---|---|---|\n| c1 | v2RegisterCluster[cpu_architecture=ppc64le\\|s390x], V2UpdateCluster[platform.type=nutanix] | (status* ours 2*, upstream 4*) | status | the oracle lacks those payloads |\n',
    );
    const status = { path: '(status class ours 2xx, upstream 4xx)', kind: 'status' as const };
    expect(acceptingRow(rows, 'v2RegisterCluster', status, { body: { cpu_architecture: 'ppc64le' } })?.id).toBe('c1');
    expect(acceptingRow(rows, 'v2RegisterCluster', { ...status, path: '(status ours 201, upstream 400)' }, { body: { cpu_architecture: 's390x' } })?.id).toBe(
      'c1',
    );
    expect(acceptingRow(rows, 'v2RegisterCluster', status, { body: { cpu_architecture: 'x86_64' } })).toBeUndefined();
    expect(acceptingRow(rows, 'v2RegisterCluster', status, { body: {} })).toBeUndefined();
    expect(acceptingRow(rows, 'v2RegisterCluster', status)).toBeUndefined();
    expect(acceptingRow(rows, 'V2UpdateCluster', status, { body: { platform: { type: 'nutanix' } } })?.id).toBe('c1');
    expect(acceptingRow(rows, 'V2UpdateCluster', status, { body: { cpu_architecture: 'ppc64le' } })).toBeUndefined();
    expect(
      acceptingRow(rows, 'v2RegisterCluster', { ...status, path: '(status class ours 4xx, upstream 2xx)' }, { body: { cpu_architecture: 'ppc64le' } }),
    ).toBeUndefined();
    const empty = parseCompatibilityTable(
      '## Deliberate differences\n\n| id | operation | path | difference | reason |\n|---|---|---|---|---|\n| c3 | UpdateInfraEnv[kernel_arguments.0.value=] | (status* ours 4*, upstream 2*) | status | an empty value |\n',
    );
    const refused = { path: '(status class ours 4xx, upstream 2xx)', kind: 'status' as const };
    expect(acceptingRow(empty, 'UpdateInfraEnv', refused, { body: { kernel_arguments: [{ value: '' }] } })?.id).toBe('c3');
    expect(acceptingRow(empty, 'UpdateInfraEnv', refused, { body: { kernel_arguments: [{ value: 'a' }] } })).toBeUndefined();
    expect(acceptingRow(empty, 'UpdateInfraEnv', refused, { body: { kernel_arguments: [] } })).toBeUndefined();
    expect(() =>
      parseCompatibilityTable(
        '## Deliberate differences\n\n| id | operation | path | difference | reason |\n|---|---|---|---|---|\n| c2 | op[cpu_architecture] | x | status | a condition without values |\n',
      ),
    ).toThrow(/op\[field=a\|b\]/);
  });

  it('a comparison with only accepted differences is accepted; any other differs', () => {
    const rows = parseCompatibilityTable(
      '## Deliberate differences\n\n| id | operation | path | difference | reason |\n|---|---|---|---|---|\n| r1 | * | org_id | only ours | organisations exist only here |\n',
    );
    const recorder = new Recorder(rows);
    recorder.record({ area: 'a', scenario: 's', step: 0, operation: 'op', check: 'body', differences: [{ path: 'org_id', kind: 'only ours', ours: 'x' }] });
    recorder.record({
      area: 'a',
      scenario: 's',
      step: 1,
      operation: 'op',
      check: 'body',
      differences: [
        { path: 'org_id', kind: 'only ours', ours: 'x' },
        { path: 'name', kind: 'value', ours: 'a', upstream: 'b' },
      ],
    });
    recorder.record({ area: 'a', scenario: 's', step: 2, operation: 'op', check: 'body', differences: [] });
    expect(recorder.totals()).toEqual({ comparisons: 3, agreeing: 1, accepted: 1, differing: 1 });
    expect(
      recorder
        .causes()
        .filter((cause) => !cause.acceptedBy)
        .map((cause) => cause.path),
    ).toEqual(['name']);
  });
});

describe('corpus', () => {
  it('has at least 500 scenarios with unique ids, every area represented', () => {
    const scenarios = allScenarios();
    expect(scenarios.length).toBeGreaterThanOrEqual(500);
    expect(new Set(scenarios.map((s) => s.area)).size).toBeGreaterThanOrEqual(10);
  });

  it('generates the same requests from the same seed, and different ones from another', () => {
    const a = generatedCases(50, 7);
    expect(generatedCases(50, 7)).toEqual(a);
    expect(generatedCases(50, 8)).not.toEqual(a);
    expect(new Set(a.map((c) => c.kind)).size).toBeGreaterThan(3);
  });

  it("reads a created cluster back only once upstream's monitor judged it, when its first judgement may rewrite what the request gave", async () => {
    expect(rewrittenByFirstJudgement({ machine_networks: [{ cidr: 'fd2e:6f44:5dd8:c956::/120' }] })).toBe(true);
    expect(rewrittenByFirstJudgement({ machine_networks: [] })).toBe(false);
    expect(rewrittenByFirstJudgement({ name: 'x' })).toBe(false);
    const upstreamAnswering = (bodies: unknown[]) => {
      const paths: string[] = [];
      const upstream = {
        send: async (request: { path: string }) => {
          paths.push(request.path);
          return { status: 200, body: bodies[Math.min(paths.length - 1, bodies.length - 1)] } as Answer;
        },
      } as unknown as ServiceEndpoint;
      return { paths, harness: { endpoints: { ours: upstream, upstream } } };
    };
    const judgedOnThird = upstreamAnswering([{}, { validations_info: '' }, { validations_info: '{"network":[]}' }]);
    await upstreamFirstJudgement(judgedOnThird.harness, '/clusters/c', { timeoutMs: 5_000, pauseMs: 1 });
    expect(judgedOnThird.paths).toEqual(['/clusters/c', '/clusters/c', '/clusters/c']);
    // Bounded: a cluster never judged is read back as it is once the wait is over.
    const neverJudged = upstreamAnswering([{}]);
    const started = Date.now();
    await upstreamFirstJudgement(neverJudged.harness, '/clusters/c', { timeoutMs: 50, pauseMs: 5 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(neverJudged.paths.length).toBeGreaterThan(1);
  });

  it('settles before comparing what our service judges at once and upstream on its first monitor pass', () => {
    const steps = (id: string) => allScenarios().find((scenario) => scenario.id === id)!.steps;
    const settledBefore = (id: string, op: string) => {
      const all = steps(id);
      const index = all.findIndex((step) => step.kind !== 'settle' && step.kind !== 'wait' && step.op === op && !step.setup);
      return index > 0 && all.slice(0, index).some((step) => step.kind === 'settle');
    };
    expect(settledBefore('operations/agent-reports/complete', 'v2CompleteInstallation')).toBe(true);
    expect(settledBefore('operations/agent-reports/host/install-progress', 'v2GetHost')).toBe(true);
    expect(settledBefore('hosts/register/no-agent-version', 'v2ListHosts')).toBe(true);
  });

  it("waits for each side's first judgement of a cluster before its hosts register, and reports a side that never judged", async () => {
    const setup = clusterWithInfraEnv({ name: 'c' });
    expect(setup.findIndex((step) => step.kind === 'wait')).toBe(1);
    // Each side answers validations_info empty until its (n+1)th read; upstream's never comes within the deadline.
    const reads: Record<Side, number> = { ours: 0, upstream: 0 };
    const judgedAfter: Record<Side, number> = { ours: 2, upstream: Number.POSITIVE_INFINITY };
    const fake = (side: Side): ServiceEndpoint => ({
      side,
      url: side,
      send: async () => {
        reads[side]++;
        const body = { validations_info: reads[side] > judgedAfter[side] ? '{"hosts-data":[]}' : side === 'ours' ? '' : undefined };
        return { status: 200, body, text: JSON.stringify(body), ms: 1 };
      },
      close: async () => {},
    });
    const recorder = new Recorder([]);
    const harness: Harness = { endpoints: { ours: fake('ours'), upstream: fake('upstream') }, recorder, settleTimeoutMs: 0, settleReads: 1, settlePauseMs: 1 };
    const states = newSideStates();
    for (const side of ['ours', 'upstream'] as const) states[side].vars.cluster = `${side}-cluster`;
    await waitOnBothSides(harness, { area: 'a', scenario: 's', step: 1 }, { ...clusterJudged(), timeoutMs: 50 }, states);
    expect(reads.ours).toBe(3);
    expect(recorder.differing.flatMap((comparison) => comparison.differences.map((d) => [d.path, d.upstream]))).toEqual([
      ['(reached) validations_info', 'undefined, still empty after 50 ms'],
    ]);
  });

  it("substitutes each side's variables, and refuses a step whose variable is not set", () => {
    expect(substitute({ path: '/clusters/{{cluster}}', body: ['{{host0}}'] }, { cluster: 'c', host0: 'h' })).toEqual({ path: '/clusters/c', body: ['h'] });
    expect(() => substitute('/x/{{missing}}', {})).toThrow(MissingVariable);
  });
});

describe('open differences (the backlog)', () => {
  const cause = (check: string, path: string, kind: string, operations = ['y']) => ({ check, path, kind, operations, count: 1, example: { scenario: 's' } });

  it('knows a cause by check, path and kind; a settled one and a status by check and path alone, since timing moves their values', () => {
    const open = [
      { check: 'body', path: 'a.b', kind: 'only ours', operations: ['x'] },
      { check: 'settle', path: 'cluster.status', kind: 'value', operations: ['settle'] },
      { check: 'status', path: '(status ours 400, upstream 201)', kind: 'status', operations: ['y'] },
    ];
    const { known, fresh, notSeen } = againstOpenDifferences(
      [
        cause('body', 'a.b', 'only ours'),
        cause('body', 'a.b', 'value'),
        cause('settle', 'cluster.status', 'only ours'),
        cause('status', '(status ours 409, upstream 201)', 'status'),
        cause('status', '(status ours 400, upstream 201)', 'status', ['z']),
        cause('body', 'c', 'value'),
      ],
      open,
    );
    expect(known.map((c) => `${c.path} ${c.kind}`)).toEqual(['a.b only ours', 'cluster.status only ours', '(status ours 409, upstream 201) status']);
    // The same codes on another operation are another cause.
    expect(fresh.map((c) => `${c.path} ${c.kind} ${c.operations}`)).toEqual(['a.b value y', '(status ours 400, upstream 201) status z', 'c value y']);
    expect(notSeen).toEqual([]);
    expect(againstOpenDifferences([], open).notSeen).toHaveLength(3);
  });

  it('sets apart new differences in judgements whose timing varies from the others', () => {
    const split = againstOpenDifferences(
      [
        cause('settle', 'hosts.<host>.suggested_role', 'value'),
        cause('event-names', 'names[]', 'only ours'),
        cause('body', 'validations_info.hardware[has-cpu-cores-for-role].message', 'value'),
        cause('body', 'inventory.disks[*].bootable', 'only ours'),
      ],
      [],
    );
    expect(split.freshTimingDependent.map((c) => c.path)).toEqual([
      'hosts.<host>.suggested_role',
      'names[]',
      'validations_info.hardware[has-cpu-cores-for-role].message',
    ]);
    expect(split.fresh.map((c) => c.path)).toEqual(['inventory.disks[*].bootable']);
  });

  it('the checked-in backlog parses and has no entry twice', () => {
    const open = loadOpenDifferences();
    expect(new Set(open.map(openDifferenceKey)).size).toBe(open.length);
  });
});
