/**
 * Schema-driven fuzzing of every operation in openapi.yaml (fast-check): each request is generated
 * from the operation's parameters and body schema and carries at least one defect that makes it
 * invalid (a hostile path segment, a value of the wrong type, a missing required field, a value
 * outside an enum, malformed JSON, a body of the wrong content type), plus noise (huge strings,
 * unicode and NUL, boundary numbers, deep nesting, extra fields). Every answer must be a 4xx with a
 * reason of bounded size, never a 5xx, and the store must be as it was.
 *
 * FUZZ_RUNS sets the number of requests (10,000 by default; e.g. FUZZ_RUNS=200000 for a long run),
 * FUZZ_SEED replays a run.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/** An error answer larger than this is echoing input back. */
const MAX_ERROR_BYTES = 4_096;
const API = '/api/assisted-install';

type Schema = Record<string, any>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  id: string;
  /** Whether a user token can call it; otherwise the infra-env's agent token is sent. */
  asUser: boolean;
  method: string;
  path: string;
  parameters: Parameter[];
  jsonBody?: Schema;
  otherBody?: string;
}

const document = loadOpenApiDocument() as Schema;

function resolve(schema: Schema | undefined, depth = 0): Schema {
  if (!schema || depth > 20) return {};
  if (schema.$ref) return resolve(schema.$ref.split('/').slice(1).reduce((node: Schema, key: string) => node[key], document), depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: Schema) => resolve(part, depth + 1)));
  return schema;
}

const operations: Operation[] = Object.entries(document.paths as Record<string, Schema>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .filter(([, operation]) => !(Array.isArray((operation as Schema).security) && (operation as Schema).security.length === 0))
    .map(([method, operation]) => {
      const op = operation as Schema;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => resolve(p)) as Parameter[];
      const content = (resolve(op.requestBody).content ?? {}) as Record<string, Schema>;
      const schemes = ((op.security ?? document.security ?? []) as Record<string, unknown>[]).flatMap((requirement) => Object.keys(requirement));
      return {
        id: op.operationId as string,
        asUser: schemes.length === 0 || schemes.includes('userAuth'),
        method: method.toUpperCase(),
        path,
        parameters: parameters.map((p) => ({ ...p, schema: resolve(p.schema) })),
        jsonBody: content['application/json'] ? resolve(content['application/json'].schema) : undefined,
        otherBody: Object.keys(content).find((type) => type !== 'application/json'),
      };
    }),
);

// --- values -------------------------------------------------------------------------------

/** Path segments as sent on the wire: raw where HTTP allows it, percent-encoded otherwise. */
const hostileSegments = ['..', '.', '%2e%2e', '%25', '%FF%FE', 'x%20', '%00', '%0A', 'not-a-uuid', encodeURIComponent('\u{1D54F}'), 'a'.repeat(2_000), encodeURIComponent("'; DROP TABLE x;--"), '00000000-0000-0000-0000-000000000000%2F..'];
const noise = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constant('x'.repeat(1_000_000)),
  fc.constant('\u0000\u0001\u{10FFFF}\uD800'),
  fc.constant('𝕏'.repeat(300)),
  fc.constantFrom(2 ** 53 + 2, -(2 ** 63), 1e308, -0, 0.5),
  fc.constant(JSON.parse('['.repeat(500) + ']'.repeat(500))),
  fc.constant(null),
  fc.boolean(),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

/** JSON nested 100,000 deep (valid, but no schema's shape): recursion in a parser or validator overflows on it. */
const DEEP_JSON_TEXT = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

/** A value of a JSON type the schema's type is not, which no coercion turns into one. */
function wrongTypeFor(schema: Schema): fc.Arbitrary<unknown> | undefined {
  // A schema with properties describes an object even where it does not say so.
  switch (schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined)) {
    case 'string':
      return fc.constantFrom<unknown>({}, [], [1], { a: 'b' });
    case 'integer':
    case 'number':
      return fc.constantFrom<unknown>({}, [], 'not a number', { n: 1 });
    case 'boolean':
      return fc.constantFrom<unknown>({}, [], 'maybe', 42);
    case 'object':
      return fc.constantFrom<unknown>('text', 42, [], true);
    case 'array':
      return fc.constantFrom<unknown>('text', 42, {}, true);
    default:
      return undefined;
  }
}

/** A plausible value for a schema (valid or nearly), or noise. */
function valueFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (depth > 3) return noise;
  if (s.enum) return fc.oneof(fc.constantFrom(...(s.enum as unknown[])), noise);
  switch (s.type) {
    case 'string':
      return fc.oneof(s.format === 'uuid' ? fc.uuid() : fc.string({ maxLength: 30 }), noise);
    case 'integer':
    case 'number':
      return fc.oneof(fc.integer({ min: -5, max: 100 }), noise);
    case 'boolean':
      return fc.oneof(fc.boolean(), noise);
    case 'array':
      return fc.oneof(fc.array(valueFor(s.items ?? {}, depth + 1), { maxLength: 3 }), noise);
    case 'object':
    default: {
      const properties = Object.entries((s.properties ?? {}) as Record<string, Schema>);
      if (properties.length === 0) return noise;
      return fc.record(Object.fromEntries(properties.map(([name, property]) => [name, valueFor(property, depth + 1)])), { requiredKeys: [] });
    }
  }
}

/** A body that breaks the schema for sure: the wrong type at the root or at a typed property, a required field missing, a value outside an enum. */
function invalidBody(schema: Schema): fc.Arbitrary<unknown> | undefined {
  const root = resolve(schema);
  const options: fc.Arbitrary<unknown>[] = [];
  const wrongRoot = wrongTypeFor(root);
  if (wrongRoot) options.push(wrongRoot);
  const properties = Object.entries((root.properties ?? {}) as Record<string, Schema>).map(([name, property]) => [name, resolve(property)] as const);
  const base = valueFor(root) as fc.Arbitrary<Record<string, unknown>>;
  const asObject = base.map((value) => (value && typeof value === 'object' && !Array.isArray(value) ? value : {}));
  for (const [name, property] of properties) {
    if (property.nullable || property['x-nullable']) continue;
    const wrong = wrongTypeFor(property);
    if (wrong) options.push(fc.tuple(asObject, wrong).map(([body, value]) => ({ ...body, [name]: value })));
    if (property.enum && property.type === 'string') options.push(asObject.map((body) => ({ ...body, [name]: 'not-one-of-the-enum-values' })));
  }
  for (const name of (root.required ?? []) as string[]) {
    options.push(asObject.map((body) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name))));
  }
  return options.length ? fc.oneof(...options) : undefined;
}

// --- requests -----------------------------------------------------------------------------

interface FuzzRequest {
  operation: string;
  asUser?: boolean;
  method: string;
  path: string;
  contentType?: string;
  body?: string;
  defect: string;
}

interface Resources {
  clusterId: string;
  infraEnvId: string;
  hostId: string;
}

function encodeQuery(entries: [string, unknown][]): string {
  // A lone surrogate has no UTF-8 form; it goes as U+FFFD, as a browser would send it.
  const encode = (text: string) => encodeURIComponent(text.toWellFormed());
  const parts = entries.filter(([, value]) => value !== undefined).map(([name, value]) => `${encode(name)}=${encode(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

function requestFor(operation: Operation, resources: Resources): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const known: Record<string, string> = { cluster_id: resources.clusterId, infra_env_id: resources.infraEnvId, host_id: resources.hostId };
  const pathValues = fc.record(Object.fromEntries(pathParameters.map((p) => [p.name, fc.oneof(fc.constant(known[p.name] ?? randomUUID()), fc.uuid())])));
  const queryValues = fc.tuple(...queryParameters.map((p) => fc.option(valueFor(p.schema), { nil: undefined }).map((value) => [p.name, value] as [string, unknown])));
  const build = (paths: Record<string, string>, query: [string, unknown][]) =>
    `${API}${operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => paths[name] ?? randomUUID())}${encodeQuery(query)}`;

  const defects: fc.Arbitrary<FuzzRequest>[] = [];
  const base = { operation: operation.id, method: operation.method, asUser: operation.asUser };
  if (pathParameters.length) {
    defects.push(
      fc.tuple(pathValues, queryValues, fc.constantFrom(...pathParameters.map((p) => p.name)), fc.constantFrom(...hostileSegments)).map(([paths, query, name, hostile]) => ({
        ...base, path: build({ ...paths, [name]: hostile }, query), defect: `hostile ${name}`,
      })),
    );
  }
  for (const parameter of queryParameters) {
    const wrong = parameter.schema.enum ? fc.constant('not-one-of-the-enum-values') : ['integer', 'number'].includes(parameter.schema.type) ? fc.constant('not a number') : parameter.schema.type === 'boolean' ? fc.constant('maybe') : undefined;
    if (!wrong) continue;
    defects.push(fc.tuple(pathValues, queryValues, wrong).map(([paths, query, value]) => ({
      ...base, path: build(paths, [...query.filter(([name]) => name !== parameter.name), [parameter.name, value]]), defect: `query ${parameter.name}`,
    })));
  }
  if (operation.jsonBody) {
    const invalid = invalidBody(operation.jsonBody);
    if (invalid) {
      defects.push(fc.tuple(pathValues, queryValues, invalid).map(([paths, query, body]) => ({
        ...base, path: build(paths, query), contentType: 'application/json', body: JSON.stringify(body), defect: 'invalid body',
      })));
    }
    // An operation that takes text (ui-settings: upstream stores what arrives) has no malformed JSON.
    if (resolve(operation.jsonBody).type !== 'string' && operation.otherBody !== 'text/plain') defects.push(fc.tuple(pathValues, queryValues, fc.constantFrom('{', '{"a":', '[1,', '\u0000', 'nul', '{"a":1}}', DEEP_JSON_TEXT)).map(([paths, query, body]) => ({
      ...base, path: build(paths, query), contentType: 'application/json', body, defect: 'malformed or deep JSON',
    })));
    defects.push(fc.tuple(pathValues, queryValues, valueFor(operation.jsonBody)).map(([paths, query, body]) => ({
      ...base, path: build(paths, query), contentType: 'application/x-www-form-urlencoded', body: `a=${encodeURIComponent((JSON.stringify(body) ?? '').toWellFormed())}`, defect: 'wrong content type',
    })));
  }
  return defects.length ? fc.oneof(...defects) : fc.constant({ ...base, path: `${API}/v2/no-such-operation/${operation.id}`, defect: 'unknown path' });
}

// --- the run ------------------------------------------------------------------------------

describe('fuzzing every operation with invalid requests', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let resources: Resources;
  let agentToken: string | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  const send = (request: FuzzRequest) =>
    new Promise<{ status: number; text: string }>((resolvePromise, reject) => {
      const url = new URL(env.runtime.url);
      const body = request.body === undefined ? undefined : Buffer.from(request.body);
      const outgoing = httpRequest({
        host: url.hostname, port: url.port, method: request.method, path: request.path, agent,
        headers: {
          ...(request.asUser === false && agentToken ? { 'X-Secret-Key': agentToken } : { Authorization: `Bearer ${env.adminToken}` }),
          ...(body ? { 'Content-Type': request.contentType ?? 'application/json', 'Content-Length': String(body.length) } : {}),
        },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      outgoing.setTimeout(30_000, () => outgoing.destroy(new Error(`${request.method} ${request.path.slice(0, 200)}: no answer in 30 s`)));
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  /** What the fuzzing must not change: every resource of the organisation, with its version. */
  const snapshot = async () => {
    const store = container().store;
    const clusters = await store.clusters.listByOrg('default');
    const infraEnvs = await store.infraEnvs.listByOrg('default');
    const hosts = (await Promise.all(infraEnvs.map((i) => store.hosts.listByInfraEnv({ orgId: 'default', infraEnvId: i.infraEnvId })))).flat();
    return {
      clusters: clusters.map((c) => `${c.clusterId}@${c.version}:${c.status}`).sort(),
      infraEnvs: infraEnvs.map((i) => `${i.infraEnvId}@${i.version}`).sort(),
      hosts: hosts.map((h) => `${h.hostId}@${h.version}:${h.status}`).sort(),
    };
  };

  beforeAll(async () => {
    env = await testRuntime();
    const versions = JSON.parse((await send({ operation: '', method: 'GET', path: `${API}/v2/openshift-versions`, defect: '' })).text) as Record<string, unknown>;
    const create = async (path: string, body: object, asUser = true) =>
      JSON.parse((await send({ operation: '', method: 'POST', path: `${API}${path}`, contentType: 'application/json', body: JSON.stringify(body), defect: '', asUser })).text) as { id: string };
    const cluster = await create('/v2/clusters', { name: 'fuzz', openshift_version: Object.keys(versions)[0], pull_secret: PULL_SECRET, base_dns_domain: 'example.com' });
    const infraEnv = await create('/v2/infra-envs', { name: 'fuzz', pull_secret: PULL_SECRET, cluster_id: cluster.id });
    agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: infraEnv.id });
    const host = await create(`/v2/infra-envs/${infraEnv.id}/hosts`, { host_id: randomUUID() }, false);
    resources = { clusterId: cluster.id, infraEnvId: infraEnv.id, hostId: (host as unknown as { host: { id: string } }).host?.id ?? host.id };
    expect(resources.hostId).toBeTruthy();
    // Let the follow-ups of the setup (judgements, events) settle before the snapshot.
    await new Promise((settle) => setTimeout(settle, 2_000));
  }, 180_000);
  afterAll(async () => {
    agent.destroy();
    await env?.close();
  });

  it(`answers ${FUZZ_RUNS} invalid requests across every operation with a bounded 4xx and changes nothing`, async () => {
    const before = await snapshot();
    const byOperation = new Map<string, number>();
    const failures: string[] = [];
    const arbitrary = fc.oneof(...operations.map((operation) => requestFor(operation, resources)));
    await fc.assert(
      fc.asyncProperty(arbitrary, async (request) => {
        byOperation.set(request.operation, (byOperation.get(request.operation) ?? 0) + 1);
        const { status, text } = await send(request);
        const problem =
          status >= 500 ? `${status}` :
          status < 400 ? `accepted with ${status}` :
          Buffer.byteLength(text) > MAX_ERROR_BYTES ? `error body of ${Buffer.byteLength(text)} bytes` :
          !/"(reason|message)":"[^"]{5,}/.test(text) ? `no reason: ${text.slice(0, 200)}` : undefined;
        if (problem && failures.length < 30) failures.push(`${request.defect} ${request.method} ${request.path.slice(0, 160)} ${request.body?.slice(0, 160) ?? ''} → ${problem} ${text.slice(0, 300)}`);
        return true;
      }),
      { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: true },
    );
    console.info(`fuzzed ${FUZZ_RUNS} requests over ${byOperation.size} of ${operations.length} operations (FUZZ_SEED=${FUZZ_SEED})`);
    expect(failures, `replay with FUZZ_SEED=${FUZZ_SEED}`).toEqual([]);
    expect(byOperation.size).toBe(operations.length);
    expect(await snapshot()).toEqual(before);
  }, 900_000);
});
