/**
 * Generated requests: fast-check arbitraries built from openapi.yaml's request-body schemas, with
 * the fields that decide most answers drawn from small pools of valid and invalid values (versions,
 * CIDRs and VIPs from one lab network, proxies, NTP sources, operators…) so that both accepted and
 * refused combinations occur. Each request goes to both services: their status classes must agree,
 * and where both accept, the stored resource (read back) must agree. Seeded: the same seed gives
 * the same requests.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { SIDES, type Answer, type Side } from './client.js';
import { compareValues } from './compare.js';
import { normalize } from './normalize.js';
import { cleanUp, errorReason, newSideStates, pool, statusClassPath, statusPath, type Harness, type SideState } from './runner.js';
import { MissingVariable, substitute } from './scenario.js';
import {
  API_VIP,
  API_VIP_V6,
  BUNDLES,
  clusterBody,
  DEFAULT_VERSION,
  hostInventory,
  INGRESS_VIP,
  INGRESS_VIP_V6,
  labHosts,
  MACHINE_NETWORK,
  MACHINE_NETWORK_V6,
  OPERATORS,
  PULL_SECRET,
  SSH_KEY,
  AGENT_VERSION,
} from './scenarios/common.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

type Schema = Record<string, any>;
const OPENAPI = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
let schemas: Record<string, Schema> | undefined;
function schemaNamed(name: string): Schema {
  schemas ??= (parseYaml(readFileSync(OPENAPI, 'utf8')) as { components: { schemas: Record<string, Schema> } }).components.schemas;
  const schema = schemas[name];
  if (!schema) throw new Error(`openapi.yaml has no schema ${name}`);
  return schema;
}
const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(schemaNamed(String(schema.$ref).split('/').pop()!)) : schema);

/** Mostly valid, sometimes not: weight 4 to the valid pool, 1 to the invalid one. */
const mixed = <T, U>(valid: readonly T[], invalid: readonly U[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...invalid) });

const V4_CIDRS = ['10.128.0.0/14', '10.132.0.0/14', '172.30.0.0/16', '172.31.0.0/16', MACHINE_NETWORK, '10.0.0.0/8'];
const V6_CIDRS = ['fd01::/48', 'fd02::/112', MACHINE_NETWORK_V6];
const BAD_CIDRS = ['10.128.0.0/33', '300.1.0.0/16', 'garbage', '', '10.128.0.1/14'];
const VIP_POOL = [API_VIP, INGRESS_VIP, '192.168.111.6', API_VIP_V6, INGRESS_VIP_V6, '10.0.0.5'];
const BAD_VIPS = ['192.168.111.300', 'not-an-ip', '', '192.168.111.0', '192.168.111.255'];

/** Pools by property name: the values that decide answers, valid and invalid mixed. */
const POOLS: Record<string, fc.Arbitrary<unknown>> = {
  name: mixed(['gen-a', 'gen-b', 'sno1', 'a', 'x'.repeat(54)], ['', 'Bad_Name', '-x', 'x'.repeat(55), '1abc']),
  openshift_version: mixed([DEFAULT_VERSION, '4.18', '4.20.33', '4.14.71', '4.19', '4.22', '4.16.68'], ['4.99', 'latest', '', '3.11', '4.9.59']),
  ocp_release_image: mixed(['quay.io/openshift-release-dev/ocp-release:4.22.9-x86_64'], ['not an image']),
  pull_secret: mixed([PULL_SECRET], ['{}', 'nope', '{"auths":{}}']),
  base_dns_domain: mixed(['example.com', 'lab.example.org', 'a.b.c.example.net'], ['bad_domain', '-x.example.com', 'local', '']),
  ssh_public_key: mixed([SSH_KEY, ''], ['ssh-rsa nope', 'garbage']),
  ssh_authorized_key: mixed([SSH_KEY, ''], ['ssh-rsa nope', 'garbage']),
  cluster_network_cidr: mixed(V4_CIDRS, BAD_CIDRS),
  service_network_cidr: mixed(V4_CIDRS, BAD_CIDRS),
  machine_network_cidr: mixed([MACHINE_NETWORK, '10.0.0.0/16'], BAD_CIDRS),
  cidr: mixed([...V4_CIDRS, ...V6_CIDRS], BAD_CIDRS),
  host_prefix: mixed([23, 24, 64], [0, 1, 30, 129, -1]),
  cluster_network_host_prefix: mixed([23, 24, 25], [0, 1, 31, 129]),
  ip: mixed(VIP_POOL, BAD_VIPS),
  api_vip_dns_name: mixed(['api.example.com'], ['bad name!']),
  http_proxy: mixed(
    ['http://proxy.example.com:3128', 'http://user:pw@10.0.0.1:8080', '', null],
    ['ftp://proxy.example.com', 'not a url', 'https://proxy.example.com:3128'],
  ),
  https_proxy: mixed(['http://proxy.example.com:3128', 'https://proxy.example.com:3129', '', null], ['ftp://proxy.example.com', 'not a url']),
  no_proxy: mixed(['.example.com', '*', '10.0.0.0/8,.example.com', '', null], ['not valid!', '*,example.com', 'a..b']),
  additional_ntp_source: mixed(['clock.example.com', '10.0.0.1', 'a.example.com,10.0.0.2', '', null], ['bad host!', 'x,,y']),
  additional_ntp_sources: mixed(['clock.example.com', '10.0.0.1', '', null], ['bad host!']),
  ntp_sources: mixed(['clock.example.com', '', null], ['bad host!']),
  tags: mixed(['a', 'a,b', '', null], ['a b', 'a,,b', '!']),
  control_plane_count: mixed([1, 2, 3, 4, 5, null], [0, -1, 6, 7, 100]),
  tang_servers: mixed(['[{"url":"http://tang.example.com:7500","thumbprint":"PLjNyRdGw03zlRoGjQYMahSZGu9"}]'], ['not json', '[]', '[{"url":"x"}]']),
  ignition_config_override: mixed(['{"ignition":{"version":"3.1.0"}}', ''], ['{"ignition":', '{"ignition":{"version":"2.2.0"}}', 'nope']),
  additional_trust_bundle: mixed([''], ['not a certificate']),
  host_name: mixed(['node-a', 'worker-7', 'n'], ['Bad_Name', 'localhost', '', 'x'.repeat(64)]),
  machine_config_pool_name: mixed(['infra', 'worker', 'master'], ['', 'Bad Pool']),
  url: mixed(['https://ignition.example.com/config', 'http://192.168.111.9:22624/config/worker', null], ['not a url', 'ftp://x']),
  ca_certificate: mixed([null], ['not a certificate']),
  rendezvous_ip: mixed([null, '192.168.111.20'], ['not-an-ip']),
  platform_name: mixed(['oci', 'my-cloud'], ['', 'x'.repeat(100)]),
  cloud_controller_manager: mixed(['', 'External'], ['Internal']),
  network_discovery_delay_seconds: mixed([0, 30], [-1, 100000]),
  ignition_endpoint_token: mixed(['token'], ['']),
};

/** Pools keyed by "schema.property" where the name alone is ambiguous. */
const SCHEMA_POOLS: Record<string, fc.Arbitrary<unknown>> = {
  'operator-create-params.name': mixed([...OPERATORS], ['no-such-operator', '']),
  'operator-create-params.properties': mixed([undefined, '{"deployment_type":"compact"}'], ['not json']),
  'bundle-create-params.id': mixed([...BUNDLES], ['no-such-bundle', '']),
  'bundle-create-params.optional_operators': fc.constant(undefined),
  'infra-env-create-params.cluster_id': mixed(['{{cluster}}', null], ['0f0f0f0f-0000-4000-8000-000000000000', 'abc']),
  'infra-env-create-params.static_network_config': fc.constant(undefined),
  'infra-env-update-params.static_network_config': fc.constant(undefined),
  'disk-selected-params.id': mixed(['/dev/disk/by-id/wwn-0x5000c5008e3d0a10', '/dev/sda'], ['/dev/nope', '/dev/sr0']),
  'disk-skip-formatting-params.disk_id': mixed(['/dev/disk/by-id/wwn-0x5000c5008e3d0a10'], ['/dev/nope']),
  'node-label-params.key': mixed(['zone', 'node-role.kubernetes.io/infra'], ['bad key!', '']),
  'node-label-params.value': mixed(['a', ''], ['bad value!']),
  'fencing-credentials-params.address': mixed(['https://bmc.example.com', 'redfish+https://10.0.0.9/redfish/v1/Systems/1'], ['not a url', '']),
  'api_vip.cluster_id': fc.constant(undefined),
  'ingress_vip.cluster_id': fc.constant(undefined),
  'cluster_network.cluster_id': fc.constant(undefined),
  'service_network.cluster_id': fc.constant(undefined),
  'machine_network.cluster_id': fc.constant(undefined),
  'api_vip.verification': fc.constant(undefined),
  'ingress_vip.verification': fc.constant(undefined),
};

const ABSENT = Symbol('absent');

/** An arbitrary for `schema`: pools first, then the schema's own type, enum, bounds and nullability (with a few values outside them). */
export function arbitraryFor(schemaIn: Schema, context: { schemaName?: string; property?: string; depth?: number } = {}): fc.Arbitrary<unknown> {
  const depth = context.depth ?? 0;
  const pooled =
    (context.schemaName && context.property && SCHEMA_POOLS[`${context.schemaName}.${context.property}`]) || (context.property && POOLS[context.property]);
  if (pooled) return pooled;
  const refName = schemaIn.$ref ? String(schemaIn.$ref).split('/').pop() : undefined;
  const schema = resolve(schemaIn);
  const nullable = schema.nullable === true || schemaIn.nullable === true;
  let base: fc.Arbitrary<unknown>;
  if (schema.enum) {
    base = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...(schema.enum as unknown[])) }, { weight: 1, arbitrary: fc.constant('not-in-enum') });
  } else if (schema.allOf) {
    base = arbitraryFor(Object.assign({}, ...schema.allOf.map(resolve)), { ...context, schemaName: refName ?? context.schemaName, depth });
  } else if (schema.type === 'boolean') {
    base = fc.boolean();
  } else if (schema.type === 'integer' || schema.type === 'number') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : -5;
    const max = typeof schema.maximum === 'number' ? schema.maximum : 1000;
    base = fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min - 1, max + 1, 0, -1, 2 ** 31) });
  } else if (schema.type === 'array') {
    base =
      depth > 3
        ? fc.constant([])
        : fc.array(
            arbitraryFor(schema.items ?? {}, { schemaName: schema.items?.$ref ? String(schema.items.$ref).split('/').pop() : undefined, depth: depth + 1 }),
            { maxLength: 3 },
          );
  } else if (schema.type === 'object' || schema.properties) {
    base = depth > 3 ? fc.constant({}) : objectArbitrary(schema, refName ?? context.schemaName, depth + 1);
  } else if (schema.format === 'uuid') {
    base = fc.constantFrom('0f0f0f0f-0000-4000-8000-000000000000', 'not-a-uuid');
  } else {
    base = fc.oneof(
      { weight: 3, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/) },
      { weight: 1, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(300), 'ünïcode') },
    );
  }
  return nullable ? fc.oneof({ weight: 8, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) }) : base;
}

/** An object: required properties nearly always, each optional one about one time in five. */
function objectArbitrary(schema: Schema, schemaName: string | undefined, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set<string>(schema.required ?? []);
  const entries = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(([, property]) => !property.readOnly);
  const fields = Object.fromEntries(
    entries.map(([name, property]) => [
      name,
      fc.oneof(
        { weight: required.has(name) ? 1 : 4, arbitrary: fc.constant(ABSENT) },
        { weight: required.has(name) ? 29 : 1, arbitrary: arbitraryFor(property, { schemaName, property: name, depth }) },
      ),
    ]),
  );
  return fc
    .record(fields)
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== (ABSENT as unknown) && value !== undefined)));
}

export function bodyArbitrary(schemaName: string, overrides: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<Record<string, unknown>> {
  const base = objectArbitrary(schemaNamed(schemaName), schemaName, 0);
  const keys = Object.keys(overrides);
  if (keys.length === 0) return base;
  return fc.tuple(base, fc.record(overrides)).map(([body, extra]) => {
    const merged: Record<string, unknown> = { ...body, ...extra };
    for (const key of keys) if (merged[key] === undefined) delete merged[key];
    return merged;
  });
}

/** What a generated case does: which operation it exercises, what it needs first, and where the result is read back. */
export interface GeneratedCase {
  kind:
    | 'create-cluster'
    | 'update-cluster'
    | 'create-infra-env'
    | 'update-infra-env'
    | 'update-host'
    | 'install-config'
    | 'manifest'
    | 'ignored-validations'
    | 'import-cluster';
  body: unknown;
}

const INSTALL_CONFIG_OVERRIDES = fc
  .dictionary(
    fc.constantFrom(
      'fips',
      'capabilities',
      'cpuPartitioningMode',
      'featureSet',
      'networking',
      'additionalTrustBundlePolicy',
      'unknownKey',
      'compute',
      'controlPlane',
      'platform',
      'proxy',
    ),
    fc.oneof(
      fc.boolean(),
      fc.constantFrom('AllNodes', 'None', 'TechPreviewNoUpgrade', 'Always'),
      fc.constant({ baselineCapabilitySet: 'None' }),
      fc.constant({ networkType: 'OVNKubernetes' }),
      fc.constant([{ name: 'worker', replicas: 2 }]),
      fc.integer({ min: -1, max: 5 }),
    ),
    { maxKeys: 3 },
  )
  .map((value) => JSON.stringify(value));

export function generatedCases(count: number, seed: number): GeneratedCase[] {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const arbitrary: fc.Arbitrary<GeneratedCase> = fc.oneof(
    { weight: 30, arbitrary: bodyArbitrary('cluster-create-params').map((body) => ({ kind: 'create-cluster' as const, body })) },
    { weight: 25, arbitrary: bodyArbitrary('v2-cluster-update-params').map((body) => ({ kind: 'update-cluster' as const, body })) },
    { weight: 12, arbitrary: bodyArbitrary('infra-env-create-params').map((body) => ({ kind: 'create-infra-env' as const, body })) },
    { weight: 10, arbitrary: bodyArbitrary('infra-env-update-params').map((body) => ({ kind: 'update-infra-env' as const, body })) },
    { weight: 8, arbitrary: bodyArbitrary('host-update-params').map((body) => ({ kind: 'update-host' as const, body })) },
    {
      weight: 5,
      arbitrary: fc.oneof(INSTALL_CONFIG_OVERRIDES, fc.constantFrom('not json', '[]', '')).map((body) => ({ kind: 'install-config' as const, body })),
    },
    {
      weight: 4,
      arbitrary: fc
        .record({
          folder: fc.constantFrom('manifests', 'openshift', 'etc', undefined),
          file_name: fc.constantFrom('a.yaml', 'b.yml', 'c.json', 'd.txt', '../e.yaml', 'f.yaml.patch_x', ''),
          content: fc.constantFrom(
            b64('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: g\n'),
            b64('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g"}}'),
            b64('a: [b'),
            'not base64!',
            '',
          ),
        })
        .map((body) => ({ kind: 'manifest' as const, body: Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) })),
    },
    {
      weight: 3,
      arbitrary: bodyArbitrary('ignored-validations', {
        'host-validation-ids': fc.constantFrom('["all"]', '["ntp-synced"]', '[]', 'nope', undefined),
        'cluster-validation-ids': fc.constantFrom('["all"]', '["api-vips-defined"]', '["pull-secret-set"]', 'x', undefined),
      }).map((body) => ({ kind: 'ignored-validations' as const, body })),
    },
    {
      weight: 3,
      arbitrary: bodyArbitrary('import-cluster-params', {
        openshift_cluster_id: fc.constantFrom('b2f0c1a4-3c57-4a1f-9d2e-6f5a8e7c9d10', 'not-a-uuid', undefined),
        api_vip_dnsname: fc.constantFrom('api.imported.example.com', '', 'bad name!', undefined),
      }).map((body) => ({ kind: 'import-cluster' as const, body })),
    },
  );
  return fc.sample(arbitrary, { seed, numRuns: count });
}

/**
 * Judgement fields: compared by scenarios once both services settle, not right after a write.
 * - The connectivity documents: upstream's cluster monitor writes them on its pass, so a read right
 *   after a write shows them or not depending on whether that pass came yet.
 * - `suggested_role`: upstream's host monitor suggests roles on its own schedule, so a host read
 *   back right after its inventory holds auto-assign or its role depending on when it looked.
 */
const JUDGEMENTS = new Set([
  'status',
  'status_info',
  'status_updated_at',
  'validations_info',
  'progress',
  'suggested_role',
  'ready_host_count',
  'enabled_host_count',
  'total_host_count',
  'logs_info',
  'stage_started_at',
  'stage_updated_at',
  'connectivity_majority_groups',
  'ip_collisions',
]);
function withoutJudgements(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withoutJudgements);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !JUDGEMENTS.has(key))
      .map(([key, item]) => [key, key === 'hosts' ? withoutJudgements(item) : item]),
  );
}

/**
 * Whether a new cluster's stored fields may change on its first judgement: machine networks given at
 * creation, which both services re-derive from the VIPs and hosts when they judge it (ours at once,
 * upstream's monitor on its first pass after the creation).
 */
export function rewrittenByFirstJudgement(body: unknown): boolean {
  const networks = (body as { machine_networks?: unknown } | null)?.machine_networks;
  return Array.isArray(networks) && networks.length > 0;
}

/** Longest wait for upstream's monitor to judge a new cluster (its period is 1 s in the harness), and the pause between reads. */
const FIRST_JUDGEMENT_WAIT = { timeoutMs: 5_000, pauseMs: 200 };

/**
 * Waits, bounded, until upstream has judged the cluster at `path` once (its validations are set), so
 * that the read-back compares what both services store after judging it, not a read that came before
 * upstream's monitor did. A cluster still unjudged at the deadline is read back as it is.
 */
export async function upstreamFirstJudgement(harness: Pick<Harness, 'endpoints'>, path: string, wait = FIRST_JUDGEMENT_WAIT): Promise<void> {
  const deadline = Date.now() + wait.timeoutMs;
  for (;;) {
    const answer = await harness.endpoints.upstream.send({ method: 'GET', path });
    const validations = (answer.body as { validations_info?: unknown } | undefined)?.validations_info;
    if (!is2xx(answer.status) || (typeof validations === 'string' && validations !== '') || Date.now() > deadline) return;
    await delay(wait.pauseMs);
  }
}

const is2xx = (status: number) => status >= 200 && status < 300;
const statusClass = (status: number) => (status === 0 ? 'no answer' : `${Math.floor(status / 100)}xx`);

const OPERATION: Record<GeneratedCase['kind'], { op: string; method: string; path: string; readBack?: string }> = {
  'create-cluster': { op: 'v2RegisterCluster', method: 'POST', path: '/clusters', readBack: '/clusters/{{created}}' },
  'update-cluster': { op: 'V2UpdateCluster', method: 'PATCH', path: '/clusters/{{cluster}}', readBack: '/clusters/{{cluster}}' },
  'create-infra-env': { op: 'RegisterInfraEnv', method: 'POST', path: '/infra-envs', readBack: '/infra-envs/{{created}}' },
  'update-infra-env': { op: 'UpdateInfraEnv', method: 'PATCH', path: '/infra-envs/{{infraEnv}}', readBack: '/infra-envs/{{infraEnv}}' },
  'update-host': {
    op: 'v2UpdateHost',
    method: 'PATCH',
    path: '/infra-envs/{{infraEnv}}/hosts/{{host0}}',
    readBack: '/infra-envs/{{infraEnv}}/hosts/{{host0}}',
  },
  'install-config': { op: 'v2UpdateClusterInstallConfig', method: 'PATCH', path: '/clusters/{{cluster}}/install-config', readBack: '/clusters/{{cluster}}' },
  manifest: { op: 'V2CreateClusterManifest', method: 'POST', path: '/clusters/{{cluster}}/manifests', readBack: '/clusters/{{cluster}}/manifests' },
  'ignored-validations': {
    op: 'v2SetIgnoredValidations',
    method: 'PUT',
    path: '/clusters/{{cluster}}/ignored-validations',
    readBack: '/clusters/{{cluster}}/ignored-validations',
  },
  'import-cluster': { op: 'v2ImportCluster', method: 'POST', path: '/clusters/import', readBack: '/clusters/{{created}}' },
};

/** The resources a case needs before its request, created on both sides (setup, not compared). */
async function prepare(harness: Harness, generated: GeneratedCase, states: Record<Side, SideState>): Promise<string | undefined> {
  const needsCluster = generated.kind !== 'create-cluster' && generated.kind !== 'import-cluster';
  const needsInfraEnv = generated.kind === 'update-infra-env' || generated.kind === 'update-host';
  const steps: { method: string; path: string; body?: unknown; agentOf?: string; save?: string }[] = [];
  if (needsCluster)
    steps.push({ method: 'POST', path: '/clusters', body: clusterBody({ api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] }), save: 'cluster' });
  if (needsInfraEnv)
    steps.push({ method: 'POST', path: '/infra-envs', body: { name: 'gen-ie', pull_secret: PULL_SECRET, cluster_id: '{{cluster}}' }, save: 'infraEnv' });
  if (generated.kind === 'update-host') {
    const host = labHosts(1)[0]!;
    steps.push({
      method: 'POST',
      path: '/infra-envs/{{infraEnv}}/hosts',
      body: { host_id: '{{host0}}', discovery_agent_version: AGENT_VERSION },
      agentOf: '{{infraEnv}}',
    });
    steps.push({
      method: 'POST',
      path: '/infra-envs/{{infraEnv}}/hosts/{{host0}}/instructions',
      body: { step_type: 'inventory', step_id: 'inventory-0a1b2c3d', output: JSON.stringify(hostInventory(host)) },
      agentOf: '{{infraEnv}}',
    });
  }
  for (const step of steps) {
    const answers = await Promise.all(SIDES.map((side) => harness.endpoints[side].send(substitute(step, states[side].vars))));
    for (const [i, side] of SIDES.entries()) {
      const answer = answers[i]!;
      if (!is2xx(answer.status)) return `setup ${step.method} ${step.path} failed on ${side}: ${answer.status} ${answer.text.slice(0, 300)}`;
      if (step.save) {
        const id = (answer.body as { id?: string }).id!;
        states[side].vars[step.save] = id;
        states[side].ids.name(id, step.save);
      }
    }
  }
  return undefined;
}

export async function runGeneratedCase(harness: Harness, generated: GeneratedCase, index: number): Promise<void> {
  const { recorder } = harness;
  const operation = OPERATION[generated.kind];
  const area = `generated ${operation.op}`;
  const states = newSideStates(generated.kind === 'update-host' ? [randomUUID()] : []);
  const scenario = `generated#${index}`;
  try {
    const problem = await prepare(harness, generated, states);
    if (problem) {
      recorder.notes.push(`${scenario} (${generated.kind}) skipped: ${problem}`);
      return;
    }
    let requests: Record<Side, { method: string; path: string; body: unknown }>;
    try {
      requests = Object.fromEntries(
        SIDES.map((side) => [side, substitute({ method: operation.method, path: operation.path, body: generated.body }, states[side].vars)]),
      ) as typeof requests;
    } catch (error) {
      if (error instanceof MissingVariable) return;
      throw error;
    }
    const answers = Object.fromEntries(
      await Promise.all(SIDES.map(async (side) => [side, await harness.endpoints[side].send(requests[side])] as const)),
    ) as Record<Side, Answer>;
    recorder.generated++;
    const request = { method: operation.method, path: operation.path, body: generated.body };
    const classes = { ours: statusClass(answers.ours.status), upstream: statusClass(answers.upstream.status) };
    recorder.record({
      area,
      scenario,
      step: 0,
      operation: operation.op,
      check: 'status class',
      request,
      differences:
        classes.ours === classes.upstream
          ? []
          : [{ path: statusClassPath(classes.ours, classes.upstream), kind: 'status', ours: answers.ours.status, upstream: answers.upstream.status }],
      reasons: { ours: errorReason(answers.ours.body), upstream: errorReason(answers.upstream.body) },
    });
    if (!is2xx(answers.ours.status) || !is2xx(answers.upstream.status) || !operation.readBack) return;
    for (const side of SIDES) {
      const created = (answers[side].body as { id?: string } | undefined)?.id;
      if (created && operation.readBack.includes('{{created}}')) {
        const name = generated.kind === 'create-infra-env' ? 'infraEnvCreated' : 'clusterCreated';
        states[side].vars[name] = created;
        states[side].vars.created = created;
        states[side].ids.name(created, 'created');
      }
    }
    if (generated.kind === 'create-cluster' && rewrittenByFirstJudgement(generated.body))
      await upstreamFirstJudgement(harness, substitute(operation.readBack, states.upstream.vars));
    const stored = await Promise.all(
      SIDES.map((side) => harness.endpoints[side].send({ method: 'GET', path: substitute(operation.readBack!, states[side].vars) })),
    );
    const comparable = (i: number, side: Side) => withoutJudgements(normalize(stored[i]!.body, states[side].ids));
    recorder.record({
      area,
      scenario,
      step: 1,
      operation: operation.op,
      check: 'stored',
      request,
      differences:
        stored[0]!.status !== stored[1]!.status
          ? [{ path: `(read back) ${statusPath(stored[0]!.status, stored[1]!.status)}`, kind: 'status', ours: stored[0]!.status, upstream: stored[1]!.status }]
          : compareValues(comparable(0, 'ours'), comparable(1, 'upstream')),
    });
  } finally {
    await cleanUp(harness, states);
  }
}

export async function runGenerated(
  harness: Harness,
  cases: readonly GeneratedCase[],
  options: { concurrency: number; onProgress?: (done: number) => void },
): Promise<void> {
  await pool(
    cases,
    options.concurrency,
    async (generated, index) => {
      try {
        await runGeneratedCase(harness, generated, index);
      } catch (error) {
        harness.recorder.notes.push(`generated#${index} stopped: ${(error as Error).stack ?? error}`);
      }
    },
    options.onProgress,
  );
}
