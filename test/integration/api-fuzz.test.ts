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
import { OpenAPIBackend } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApiDocument, loadRouterDefinition } from '../../lambdas/handlers/api/openapi-document.js';
import { asRouterDocument } from '../../lambdas/handlers/api/router-document.js';
import { addRouterFormats } from '../../lambdas/handlers/api/router-formats.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken, issueInfraEnvAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { inventory, PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
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
  if (schema.$ref)
    return resolve(
      schema.$ref
        .split('/')
        .slice(1)
        .reduce((node: Schema, key: string) => node[key], document),
      depth + 1,
    );
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
const hostileSegments = [
  '..',
  '.',
  '%2e%2e',
  '%25',
  '%FF%FE',
  'x%20',
  '%00',
  '%0A',
  'not-a-uuid',
  encodeURIComponent('\u{1D54F}'),
  'a'.repeat(2_000),
  encodeURIComponent("'; DROP TABLE x;--"),
  '00000000-0000-0000-0000-000000000000%2F..',
];
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
  const parts = entries
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${encode(name)}=${encode(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

function requestFor(operation: Operation, resources: Resources): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const known: Record<string, string> = { cluster_id: resources.clusterId, infra_env_id: resources.infraEnvId, host_id: resources.hostId };
  const pathValues = fc.record(Object.fromEntries(pathParameters.map((p) => [p.name, fc.oneof(fc.constant(known[p.name] ?? randomUUID()), fc.uuid())])));
  const queryValues = fc.tuple(
    ...queryParameters.map((p) => fc.option(valueFor(p.schema), { nil: undefined }).map((value) => [p.name, value] as [string, unknown])),
  );
  const build = (paths: Record<string, string>, query: [string, unknown][]) =>
    `${API}${operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => paths[name] ?? randomUUID())}${encodeQuery(query)}`;

  const defects: fc.Arbitrary<FuzzRequest>[] = [];
  const base = { operation: operation.id, method: operation.method, asUser: operation.asUser };
  if (pathParameters.length) {
    defects.push(
      fc
        .tuple(pathValues, queryValues, fc.constantFrom(...pathParameters.map((p) => p.name)), fc.constantFrom(...hostileSegments))
        .map(([paths, query, name, hostile]) => ({
          ...base,
          path: build({ ...paths, [name]: hostile }, query),
          defect: `hostile ${name}`,
        })),
    );
  }
  for (const parameter of queryParameters) {
    const wrong = parameter.schema.enum
      ? fc.constant('not-one-of-the-enum-values')
      : ['integer', 'number'].includes(parameter.schema.type)
        ? fc.constant('not a number')
        : parameter.schema.type === 'boolean'
          ? fc.constant('maybe')
          : undefined;
    if (!wrong) continue;
    defects.push(
      fc.tuple(pathValues, queryValues, wrong).map(([paths, query, value]) => ({
        ...base,
        path: build(paths, [...query.filter(([name]) => name !== parameter.name), [parameter.name, value]]),
        defect: `query ${parameter.name}`,
      })),
    );
  }
  if (operation.jsonBody) {
    const invalid = invalidBody(operation.jsonBody);
    if (invalid) {
      defects.push(
        fc.tuple(pathValues, queryValues, invalid).map(([paths, query, body]) => ({
          ...base,
          path: build(paths, query),
          contentType: 'application/json',
          body: JSON.stringify(body),
          defect: 'invalid body',
        })),
      );
    }
    // An operation that takes text (ui-settings: upstream stores what arrives) has no malformed JSON.
    if (resolve(operation.jsonBody).type !== 'string' && operation.otherBody !== 'text/plain')
      defects.push(
        fc.tuple(pathValues, queryValues, fc.constantFrom('{', '{"a":', '[1,', '\u0000', 'nul', '{"a":1}}', DEEP_JSON_TEXT)).map(([paths, query, body]) => ({
          ...base,
          path: build(paths, query),
          contentType: 'application/json',
          body,
          defect: 'malformed or deep JSON',
        })),
      );
    defects.push(
      fc.tuple(pathValues, queryValues, valueFor(operation.jsonBody)).map(([paths, query, body]) => ({
        ...base,
        path: build(paths, query),
        contentType: 'application/x-www-form-urlencoded',
        body: `a=${encodeURIComponent((JSON.stringify(body) ?? '').toWellFormed())}`,
        defect: 'wrong content type',
      })),
    );
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
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: request.method,
          path: request.path,
          agent,
          headers: {
            ...(request.asUser === false && agentToken ? { 'X-Secret-Key': agentToken } : { Authorization: `Bearer ${env.adminToken}` }),
            ...(body ? { 'Content-Type': request.contentType ?? 'application/json', 'Content-Length': String(body.length) } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
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
    const versions = JSON.parse((await send({ operation: '', method: 'GET', path: `${API}/v2/openshift-versions`, defect: '' })).text) as Record<
      string,
      unknown
    >;
    const create = async (path: string, body: object, asUser = true) =>
      JSON.parse(
        (await send({ operation: '', method: 'POST', path: `${API}${path}`, contentType: 'application/json', body: JSON.stringify(body), defect: '', asUser }))
          .text,
      ) as { id: string };
    const cluster = await create('/v2/clusters', {
      name: 'fuzz',
      openshift_version: Object.keys(versions)[0],
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
    });
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
          status >= 500
            ? `${status}`
            : status < 400
              ? `accepted with ${status}`
              : Buffer.byteLength(text) > MAX_ERROR_BYTES
                ? `error body of ${Buffer.byteLength(text)} bytes`
                : !/"(reason|message)":"[^"]{5,}/.test(text)
                  ? `no reason: ${text.slice(0, 200)}`
                  : undefined;
        if (problem && failures.length < 30)
          failures.push(
            `${request.defect} ${request.method} ${request.path.slice(0, 160)} ${request.body?.slice(0, 160) ?? ''} → ${problem} ${text.slice(0, 300)}`,
          );
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

// --- requests the schema accepts ----------------------------------------------------------
//
// A second generator: requests openapi.yaml accepts (each checked against the router's own
// validator before it is sent), with the values a careless or hostile client may send within the
// schema: null where nullable, the bounds of every number type (int64 here is a JavaScript safe
// integer, int32 its 32 bits, minimum/maximum), strings as long as maxLength allows (or very long
// where nothing bounds them), strings matching each pattern and format, every enum value, arrays
// within their item counts, required and optional properties, and deep nesting where the type is
// free. Paths mostly name a real cluster, infra-env and host (sometimes a random id: a 404).
// Every answer must be a 2xx or a 4xx, and a 4xx must leave the resources it names as they were.
//
// FUZZ_VALID_RUNS sets the number of requests (10,000 by default), FUZZ_SEED replays a run (the
// same requests; with FUZZ_CONCURRENCY=1 in the same order too), FUZZ_CONCURRENCY the workers
// (4 by default), each with its own cluster, infra-env and host.

const FUZZ_VALID_RUNS = Number(process.env.FUZZ_VALID_RUNS ?? 10_000);
const FUZZ_CONCURRENCY = Math.max(1, Number(process.env.FUZZ_CONCURRENCY ?? 4));

/** Stand-ins for the ids of the worker's own resources: replaced in the path, query and body when the request is sent. */
const OWN_ID_PLACEHOLDERS = {
  cluster_id: 'fffffff1-0000-4000-8000-00000000c1a5',
  infra_env_id: 'fffffff2-0000-4000-8000-0000000001e0',
  host_id: 'fffffff3-0000-4000-8000-000000000405',
} as const;
type OwnIdName = keyof typeof OWN_ID_PLACEHOLDERS;
const isOwnIdName = (name: string | undefined): name is OwnIdName => name !== undefined && Object.hasOwn(OWN_ID_PLACEHOLDERS, name);

/** Deeper than this the router refuses a body as Go's decoder would (10,000 levels). */
const DEEPEST_ACCEPTED_NESTING = 9_000;
/** Lengths of the long strings where no maxLength bounds them: past a DynamoDB item's 400 KB too. */
const LONG_STRING_LENGTHS = [1_000, 1_000, 65_536, 450_000];

interface AcceptedContext {
  /** The OpenShift versions the service offers (openshift_version fields draw from them). */
  versions: string[];
}

const ofLength = (length: number) =>
  fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme' }).map((chunk) => chunk.repeat(Math.ceil(length / chunk.length)).slice(0, length));

/**
 * A JSON value nested `levels` deep, in arrays or objects, stands in the generated value as a
 * marker string, written out as JSON text only when the body is (JSON.stringify would overflow
 * the stack on it).
 */
const nested = (levels: number, kind: 'array' | 'object'): string => `\u0000nested:${levels}:${kind}\u0000`;
const NESTED_MARKER = /"\\u0000nested:(\d+):(array|object)\\u0000"/g;
const toJsonText = (value: unknown, text = JSON.stringify(value)): string =>
  !text.includes('\\u0000nested:')
    ? text
    : text.replace(NESTED_MARKER, (_, levels: string, kind: string) =>
        kind === 'array'
          ? `${'['.repeat(Number(levels))}${']'.repeat(Number(levels))}`
          : `${'{"n":'.repeat(Number(levels) - 1)}{}${'}'.repeat(Number(levels) - 1)}`,
      );

/** Any JSON value, sometimes nested deep: what a property of no declared type (or free additionalProperties) accepts. */
function freeValue(depth: number): fc.Arbitrary<unknown> {
  const room = DEEPEST_ACCEPTED_NESTING - depth;
  return fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(2, 32, 33, 100, 1_000, room), fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([levels, kind]) => nested(Math.min(levels, room), kind)),
    },
  );
}

/** A network in CIDR notation with its host bits clear, as a careful client sends one. */
const realisticCidr = fc.oneof(
  fc.constantFrom('10.128.0.0/14', '172.30.0.0/16', '192.168.127.0/24', '10.0.0.0/8', '0.0.0.0/0', 'fd01::/48', 'fd02::/112', '2001:db8::/32'),
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([ip, prefix]) => {
    const bits = ip.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
    const network = prefix === 0 ? 0 : Math.floor(bits / 2 ** (32 - prefix)) * 2 ** (32 - prefix);
    return `${[24, 16, 8, 0].map((shift) => Math.floor(network / 2 ** shift) % 256).join('.')}/${prefix}`;
  }),
);
const realisticMac = fc
  .array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 })
  .map((bytes) => bytes.map((b) => b.toString(16).padStart(2, '0')).join(':'));

/** Values a pattern may be meant for: each is offered where the pattern accepts a sample of it. */
const PATTERN_CANDIDATES: [sample: string, arbitrary: fc.Arbitrary<string>][] = [
  ['10.0.0.0/8', realisticCidr],
  ['192.168.1.5', fc.ipV4()],
  ['fd00::5', fc.ipV6()],
  ['52:54:00:aa:bb:01', realisticMac],
  ['quay.io/openshift/image:4.15', fc.tuple(fc.domain(), fc.stringMatching(/^[a-z0-9]{1,10}$/)).map(([domain, tag]) => `${domain}/repo/image:${tag}`)],
  ['manifest.yaml', fc.stringMatching(/^[a-z0-9-]{1,20}\.(json|ya?ml)$/)],
];

/** Realistic values for properties by name, offered beside the generic ones, so requests get past the first checks to deeper code. */
function hintFor(name: string | undefined, context: AcceptedContext): fc.Arbitrary<unknown> | undefined {
  switch (name) {
    case 'pull_secret':
      return fc.constant(PULL_SECRET);
    case 'openshift_version':
      return fc.constantFrom(...context.versions);
    case 'base_dns_domain':
      return fc.domain();
    case 'name':
      return fc.stringMatching(/^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$/);
    case 'http_proxy':
    case 'https_proxy':
      return fc.webUrl({ validSchemes: ['http'] });
    case 'no_proxy':
      return fc.array(fc.domain(), { minLength: 1, maxLength: 3 }).map((domains) => domains.join(','));
    case 'ssh_public_key':
    case 'ssh_authorized_key':
      return fc.constant(sshPublicKey());
    case 'ip':
      return fc.ipV4();
    case 'cidr':
    case 'cluster_network_cidr':
    case 'service_network_cidr':
    case 'machine_network_cidr':
      return realisticCidr;
    case 'additional_ntp_source':
    case 'additional_ntp_sources':
      return fc.array(fc.oneof(fc.domain(), fc.ipV4()), { minLength: 1, maxLength: 3 }).map((sources) => sources.join(','));
    case 'ignition_config_override':
      return fc.constant('{"ignition":{"version":"3.2.0"}}');
    case 'output':
      return fc.constantFrom(inventory('fuzzed-host'), '{}', '');
    case 'content':
      // A manifest's content: base64 of a YAML or JSON document.
      return fc
        .constantFrom(
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzzed\n  namespace: openshift-config\n',
          '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fuzzed"}}',
        )
        .map((text) => Buffer.from(text).toString('base64'));
    default:
      return undefined;
  }
}

function acceptedString(s: Schema, name: string | undefined, context: AcceptedContext): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = s.maxLength ?? Number.POSITIVE_INFINITY;
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
  const options: fc.Arbitrary<string>[] = [];
  if (s.pattern) {
    const pattern = new RegExp(s.pattern, 'u');
    options.push(fc.stringMatching(pattern));
    for (const [sample, arbitrary] of PATTERN_CANDIDATES) if (pattern.test(sample)) options.push(arbitrary.filter((text) => pattern.test(text)));
  } else {
    switch (s.format) {
      case 'uuid':
        options.push(fc.uuid());
        break;
      case 'date-time':
        options.push(
          fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }).map((date) => date.toISOString()),
        );
        break;
      case 'ipv4':
        options.push(fc.ipV4());
        break;
      case 'ipv6':
        options.push(fc.ipV6());
        break;
      case 'email':
        options.push(fc.emailAddress());
        break;
      case 'uri':
        options.push(fc.webUrl({ withQueryParameters: true, withFragments: true }));
        break;
      case 'hostname':
        options.push(fc.domain());
        break;
      case 'mac':
        options.push(realisticMac);
        break;
      default: {
        const cap = Math.min(maxLength, 40);
        const weighted: fc.WeightedArbitrary<string>[] = [
          { weight: 20, arbitrary: fc.string({ minLength: Math.min(minLength, cap), maxLength: cap }) },
          { weight: 10, arbitrary: fc.string({ minLength: Math.min(minLength, cap), maxLength: cap, unit: 'binary' }) },
        ];
        if (minLength > 0) weighted.push({ weight: 2, arbitrary: ofLength(minLength) });
        // As long as the schema allows: every string at its maxLength now and then; where nothing
        // bounds it, a long one rarely (a request carries many strings, and each long one costs).
        if (Number.isFinite(maxLength)) weighted.push({ weight: 3, arbitrary: ofLength(maxLength) });
        else weighted.push({ weight: 1, arbitrary: fc.constantFrom(...LONG_STRING_LENGTHS).chain(ofLength) });
        options.push(fc.oneof(...weighted));
      }
    }
  }
  const generic = fc.oneof(...options).filter(fits);
  const hint = hintFor(name, context) as fc.Arbitrary<string> | undefined;
  return hint ? fc.oneof(hint.filter(fits), generic) : generic;
}

/** The bounds of an integer schema: its format's (int64 here: the safe integers), narrowed by minimum/maximum. */
function integerBounds(s: Schema): [number, number] {
  let min = s.format === 'int32' ? -(2 ** 31) : Number.MIN_SAFE_INTEGER;
  let max = s.format === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
  if (typeof s.minimum === 'number') min = Math.max(min, s.exclusiveMinimum === true ? Math.floor(s.minimum) + 1 : Math.ceil(s.minimum));
  if (typeof s.maximum === 'number') max = Math.min(max, s.exclusiveMaximum === true ? Math.ceil(s.maximum) - 1 : Math.floor(s.maximum));
  return [min, max];
}

function acceptedInteger(s: Schema): fc.Arbitrary<number> {
  const [min, max] = integerBounds(s);
  const within = (n: number) => Math.min(max, Math.max(min, n));
  return fc.oneof(
    fc.constantFrom(min, max, within(0), within(1), within(-1), within(2 ** 31 - 1), within(2 ** 31), within(2 ** 32)),
    fc.integer({ min: within(-1_000), max: within(1_000) }),
    fc.double({ min, max, noNaN: true }).map(Math.trunc).map(within),
  );
}

function acceptedNumber(s: Schema): fc.Arbitrary<number> {
  const min = typeof s.minimum === 'number' ? s.minimum : -Number.MAX_VALUE;
  const max = typeof s.maximum === 'number' ? s.maximum : Number.MAX_VALUE;
  return fc
    .oneof(
      fc.constantFrom(min, max, 0, 5e-324, 1e308, -1e308, 0.1, 2 ** 53 + 2).filter((n) => n >= min && n <= max),
      fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
    )
    .filter((n) => (s.exclusiveMinimum !== true || n > min) && (s.exclusiveMaximum !== true || n < max));
}

const typeOf = (s: Schema): string | undefined => s.type ?? (s.properties ? 'object' : s.items ? 'array' : undefined);

/** A value the schema accepts. `depth` counts the JSON levels above it; deep down, optional parts are left out. */
function acceptedValueFor(schema: Schema, context: AcceptedContext, depth = 0, name?: string): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const value = acceptedNonNullValue(s, context, depth, name);
  // ajv takes a null for a nullable enum only where the enum lists null.
  const takesNull = s.nullable === true && typeOf(s) !== undefined && (!s.enum || (s.enum as unknown[]).includes(null));
  return takesNull ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: value }) : value;
}

function acceptedNonNullValue(s: Schema, context: AcceptedContext, depth: number, name: string | undefined): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  if (isOwnIdName(name) && s.format === 'uuid')
    return fc.oneof({ weight: 4, arbitrary: fc.constant(OWN_ID_PLACEHOLDERS[name]) }, { weight: 1, arbitrary: fc.uuid() });
  switch (typeOf(s)) {
    case 'string':
      return acceptedString(s, name, context);
    case 'integer':
      return acceptedInteger(s);
    case 'number':
      return acceptedNumber(s);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = s.maxItems ?? Number.POSITIVE_INFINITY;
      const item = acceptedValueFor(s.items ?? {}, context, depth + 1);
      if (depth > 6) return fc.array(item, { minLength, maxLength: minLength });
      return fc.oneof(
        { weight: 6, arbitrary: fc.array(item, { minLength, maxLength: Math.max(minLength, Math.min(maxLength, 4)) }) },
        // Many of one item: cheap to generate, as long as the schema lets it be.
        {
          weight: 1,
          arbitrary: fc
            .tuple(item, fc.integer({ min: minLength, max: Math.min(maxLength, 200) }))
            .map(([one, count]) => Array.from({ length: count }, () => one)),
        },
      );
    }
    case 'object': {
      const properties = Object.entries((s.properties ?? {}) as Record<string, Schema>);
      const required = ((s.required ?? []) as string[]).filter((key) => properties.some(([property]) => property === key));
      const kept = depth > 6 ? properties.filter(([property]) => required.includes(property)) : properties;
      const values = Object.fromEntries(kept.map(([property, propertySchema]) => [property, acceptedValueFor(propertySchema, context, depth + 1, property)]));
      const optional = kept.map(([property]) => property).filter((property) => !required.includes(property));
      const withProperties = (names: string[]) => fc.record(Object.fromEntries(names.map((property) => [property, values[property]!])));
      // Mostly a few optional properties, so each reaches the code that reads it rather than a
      // refusal of another; sometimes any number of them.
      const declared =
        optional.length === 0
          ? withProperties(required)
          : fc.oneof(
              {
                weight: 3,
                arbitrary: fc.subarray(optional, { maxLength: Math.min(3, optional.length) }).chain((names) => withProperties([...required, ...names])),
              },
              { weight: 1, arbitrary: fc.record(values, { requiredKeys: required }) },
            );
      // Properties the schema does not name: where additionalProperties allows them (an object that
      // names its properties and says nothing of others is closed, as upstream's decoder and the router read it).
      const additional = s.additionalProperties;
      const open = additional === true || (additional !== undefined && typeof additional === 'object') || (additional === undefined && properties.length === 0);
      if (!open || depth > 6) return declared;
      const extraValue = additional && typeof additional === 'object' ? acceptedValueFor(additional, context, depth + 1) : freeValue(depth + 1);
      const extraKeys = fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !properties.some(([property]) => property === key) && key !== '__proto__');
      const extras = fc.dictionary(extraKeys, extraValue, { maxKeys: 4, noNullPrototype: true });
      return fc.tuple(declared, fc.oneof(fc.constant({}), extras)).map(([known, extra]) => ({ ...extra, ...known }));
    }
    default:
      return freeValue(depth);
  }
}

/** A request the schema accepts, with the worker's own ids as placeholders. */
interface AcceptedRequest {
  operation: string;
  asUser: boolean;
  method: string;
  /** Path parameters by name, as sent (not yet encoded). */
  pathParameters: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  contentType?: string;
  body?: string;
}

/** A query or header value as text, the way a client writes it. */
const asText = (value: unknown): string => (typeof value === 'string' ? value.toWellFormed() : JSON.stringify(value));

/** A multipart/form-data body with one file part (the log upload). */
function multipartBody(field: string, content: string, boundary = 'fuzz-boundary-7d41'): { contentType: string; body: string } {
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="logs.tar.gz"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  };
}

function acceptedRequestFor(operation: Operation, context: AcceptedContext): fc.Arbitrary<AcceptedRequest> {
  const byLocation = (location: Parameter['in']) => operation.parameters.filter((p) => p.in === location);
  const pathParameter = (p: Parameter): fc.Arbitrary<string> => {
    if (isOwnIdName(p.name)) return fc.oneof({ weight: 9, arbitrary: fc.constant(OWN_ID_PLACEHOLDERS[p.name]) }, { weight: 1, arbitrary: fc.uuid() });
    if (p.name === 'organization_id')
      return fc.oneof({ weight: 3, arbitrary: fc.constant('default') }, { weight: 1, arbitrary: acceptedString(p.schema, p.name, context) });
    // What a path segment cannot carry, whatever the schema says: nothing, '.' or '..', a '/', and
    // what the router refuses in any path before it reads a schema (whitespace, control characters, '%').
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the router refuses control characters in a path, so the fuzzer leaves them out
    const unroutable = /[\s\u0000-\u001f\u007f%/]/u;
    return acceptedValueFor(p.schema, context, 0, p.name)
      .map(asText)
      .filter((text) => text.length > 0 && text !== '.' && text !== '..' && !unroutable.test(text));
  };
  const optional = (p: Parameter, value: fc.Arbitrary<unknown>) => (p.required ? value : fc.option(value, { nil: undefined, freq: 2 }));
  const queryValue = (p: Parameter): fc.Arbitrary<string[] | undefined> => {
    const schema = resolve(p.schema);
    const values =
      schema.type === 'array'
        ? fc.array(acceptedValueFor(schema.items ?? {}, context, 1), {
            minLength: Math.max(1, schema.minItems ?? 0),
            maxLength: Math.max(1, Math.min(schema.maxItems ?? 3, 3)),
          })
        : acceptedValueFor(schema, context, 0, p.name).map((value) => [value]);
    // A query cannot say null: a nullable parameter is left out instead.
    const texts: fc.Arbitrary<string[]> = values.map((list) => list.filter((value) => value !== null).map(asText));
    return (optional(p, texts) as fc.Arbitrary<string[] | undefined>).map((list) => (list?.length ? list : undefined));
  };
  const headerValue = (p: Parameter) =>
    optional(
      p,
      resolve(p.schema).type === 'string'
        ? fc.stringMatching(/^[!-~]{1,40}$/)
        : acceptedValueFor(p.schema, context, 0, p.name)
            .filter((value) => value !== null)
            .map(asText),
    );

  const path = fc.record(Object.fromEntries(byLocation('path').map((p) => [p.name, pathParameter(p)])));
  const query = fc
    .tuple(...byLocation('query').map((p) => queryValue(p).map((values) => (values ?? []).map((value) => [p.name, value] as [string, string]))))
    .map((lists) => lists.flat());
  const headers = fc
    .record(Object.fromEntries(byLocation('header').map((p) => [p.name, headerValue(p)])), { requiredKeys: [] })
    .map((record) => Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined)));
  const bodies: fc.Arbitrary<{ contentType?: string; body?: string }>[] = [];
  if (operation.jsonBody)
    bodies.push(acceptedValueFor(operation.jsonBody, context).map((body) => ({ contentType: 'application/json', body: toJsonText(body) })));
  // An empty body is no body on the wire: not a text.
  if (operation.otherBody === 'text/plain')
    bodies.push(
      fc
        .oneof(fc.string({ minLength: 1, maxLength: 200 }), fc.constantFrom(...LONG_STRING_LENGTHS).chain(ofLength))
        .map((text) => ({ contentType: 'text/plain', body: text.toWellFormed() })),
    );
  if (operation.otherBody === 'multipart/form-data')
    bodies.push(
      fc
        .oneof(fc.string({ maxLength: 200 }), fc.constantFrom(...LONG_STRING_LENGTHS).chain(ofLength))
        .map((content) => multipartBody('upfile', content.toWellFormed())),
    );
  const body = bodies.length ? fc.oneof(...bodies) : fc.constant<{ contentType?: string; body?: string }>({});
  return fc
    .record({ pathParameters: path, query, headers, body })
    .map(({ pathParameters, query: queryEntries, headers: headerEntries, body: { contentType, body: text } }) => ({
      operation: operation.id,
      asUser: operation.asUser,
      method: operation.method,
      pathParameters,
      query: queryEntries,
      headers: headerEntries,
      ...(text === undefined ? {} : { contentType, body: text }),
    }));
}

/** A router validator as the API's own: the same document, int64 rule and formats. */
function routerValidator(): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: asRouterDocument(loadRouterDefinition()),
    apiRoot: API,
    quick: true,
    validate: true,
    customizeAjv: (ajv) => addRouterFormats(ajv),
  });
  api.init();
  return api;
}

/** Operations whose success starts work that goes on after the answer (an installation workflow): the worker's resources are not watched after one. */
const STARTS_BACKGROUND_WORK = new Set(['v2InstallCluster']);
/** Operations whose success makes the worker's agent token stale. */
const ENDS_AGENT_TOKEN = new Set(['RegenerateInfraEnvSigningKey']);

describe('fuzzing every operation with requests the schema accepts', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let context: AcceptedContext;
  const agent = new Agent({ keepAlive: true, maxSockets: FUZZ_CONCURRENCY * 2 });
  const validator = routerValidator();

  interface Worker extends Resources {
    agentToken: string;
  }

  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; text: string }>((resolvePromise, reject) => {
      const url = new URL(env.runtime.url);
      const payload = body === undefined ? undefined : Buffer.from(body);
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: { ...headers, ...(payload ? { 'Content-Length': String(payload.length) } : {}) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      outgoing.setTimeout(60_000, () => outgoing.destroy(new Error(`${method} ${path.slice(0, 200)}: no answer in 60 s`)));
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  const asAdmin = () => ({ Authorization: `Bearer ${env.adminToken}` });

  let workerCount = 0;
  /** A cluster, an infra-env bound to it and a host registered with the infra-env's agent token, for one worker. */
  const createWorkerResources = async (): Promise<Worker> => {
    const post = async (path: string, body: object, headers: Record<string, string>) => {
      const answer = await send('POST', `${API}${path}`, { ...headers, 'Content-Type': 'application/json' }, JSON.stringify(body));
      if (answer.status !== 201) throw new Error(`setup POST ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
      return JSON.parse(answer.text) as { id: string };
    };
    workerCount += 1;
    const cluster = await post(
      '/v2/clusters',
      { name: `fuzz-accepted-${workerCount}`, openshift_version: context.versions[0], pull_secret: PULL_SECRET, base_dns_domain: 'example.com' },
      asAdmin(),
    );
    const infraEnv = await post('/v2/infra-envs', { name: `fuzz-accepted-${workerCount}`, pull_secret: PULL_SECRET, cluster_id: cluster.id }, asAdmin());
    const stored = await container().store.infraEnvs.get({ orgId: 'default', infraEnvId: infraEnv.id });
    const agentToken = await issueInfraEnvAgentToken(container().config.agentSigningKeyPem, stored!, new Date(Date.now() + 3_600_000));
    const host = await post(`/v2/infra-envs/${infraEnv.id}/hosts`, { host_id: randomUUID() }, { 'X-Secret-Key': agentToken });
    const hostId = (host as unknown as { host?: { id: string } }).host?.id ?? host.id;
    return { clusterId: cluster.id, infraEnvId: infraEnv.id, hostId, agentToken };
  };

  /** The versions of the worker's resources (undefined: gone). */
  const versionsOf = async (worker: Worker) => {
    const store = container().store;
    const [cluster, infraEnv, host] = await Promise.all([
      store.clusters.get({ orgId: 'default', clusterId: worker.clusterId }),
      store.infraEnvs.get({ orgId: 'default', infraEnvId: worker.infraEnvId }),
      store.hosts.get({ orgId: 'default', infraEnvId: worker.infraEnvId, hostId: worker.hostId }),
    ]);
    return { cluster: cluster?.version, infraEnv: infraEnv?.version, host: host?.version };
  };

  /** The request as sent by this worker: its ids in place of the placeholders. */
  const materialize = (request: AcceptedRequest, worker: Worker) => {
    const ids: Record<string, string> = {
      [OWN_ID_PLACEHOLDERS.cluster_id]: worker.clusterId,
      [OWN_ID_PLACEHOLDERS.infra_env_id]: worker.infraEnvId,
      [OWN_ID_PLACEHOLDERS.host_id]: worker.hostId,
    };
    const own = (text: string) => text.replace(/fffffff[123]-0000-4000-8000-[0-9a-f]{12}/g, (placeholder) => ids[placeholder] ?? placeholder);
    const operation = operations.find((o) => o.id === request.operation)!;
    const pathParameters = Object.fromEntries(Object.entries(request.pathParameters).map(([name, value]) => [name, own(value)]));
    const query = request.query.map(([name, value]) => [name, own(value)] as [string, string]);
    const route = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParameters[name]!));
    const queryText = query.length ? `?${query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}` : '';
    return { route, path: `${API}${route}${queryText}`, query, body: request.body === undefined ? undefined : own(request.body) };
  };

  /** What the router's validator says of the request: undefined when it accepts it. */
  const refusal = (request: AcceptedRequest, sent: ReturnType<typeof materialize>): string | undefined => {
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of sent.query) query[name] = name in query ? [...[query[name]!].flat(), value] : value;
    const jsonBody = request.contentType === 'application/json' || request.contentType === 'text/plain';
    const body = request.contentType === 'text/plain' ? JSON.stringify(sent.body) : jsonBody ? sent.body : undefined;
    const result = validator.validateRequest(
      {
        method: request.method,
        path: `${API}${sent.route}`,
        query,
        headers: { ...request.headers, ...(jsonBody ? { 'content-type': 'application/json' } : {}) },
        body,
      },
      request.operation,
    );
    return result.valid
      ? undefined
      : (result.errors ?? [])
          .slice(0, 3)
          .map((e) => `${e.instancePath} ${e.message}`)
          .join('; ');
  };

  beforeAll(async () => {
    // No periodic monitor may change a resource while a request that must change nothing is judged.
    env = await testRuntime({ syntheticBaseImages: false, scheduleOverrides: { 'host-monitor': 24 * 3_600_000 } });
    const versions = JSON.parse((await send('GET', `${API}/v2/openshift-versions`, asAdmin())).text) as Record<string, unknown>;
    context = { versions: Object.keys(versions) };
    expect(context.versions.length).toBeGreaterThan(0);
  }, 180_000);
  afterAll(async () => {
    agent.destroy();
    await env?.close();
  });

  it(`answers ${FUZZ_VALID_RUNS} accepted requests across every operation with a 2xx or a 4xx that changes nothing`, async () => {
    const started = performance.now();
    const arbitrary = fc.oneof(...operations.map((operation) => acceptedRequestFor(operation, context)));
    // Drawn in batches, each from its own seed, so a run of any length holds only a batch in memory.
    const BATCH = 250;
    const batches = Math.ceil(FUZZ_VALID_RUNS / BATCH);
    let pending: AcceptedRequest[] = [];
    let batch = 0;
    let drawn = 0;
    const next = (): AcceptedRequest | undefined => {
      if (drawn >= FUZZ_VALID_RUNS) return undefined;
      if (pending.length === 0 && batch < batches)
        pending = fc.sample(arbitrary, { numRuns: Math.min(BATCH, FUZZ_VALID_RUNS - batch * BATCH), seed: FUZZ_SEED + batch++ }).reverse();
      drawn += 1;
      return pending.pop();
    };

    const statuses = new Map<string, number>();
    const answeredByOperation = new Map<string, Set<number>>();
    const failures: string[] = [];
    let generatorRefused = 0;
    const generatorRefusals: string[] = [];
    let routerRefused = 0;
    const routerRefusals: string[] = [];
    let workersRenewed = 0;
    const timeByOperation = new Map<string, { count: number; ms: number }>();
    /** Operations the service answers with its 501 (not implemented yet): no crash, and no other answer to judge. */
    const notImplemented = new Set<string>();
    const describeRequest = (request: AcceptedRequest, sent: ReturnType<typeof materialize>) =>
      `${request.operation} ${request.method} ${sent.path.slice(0, 200)} ${sent.body?.slice(0, 200) ?? ''}`;

    const work = async () => {
      let worker = await createWorkerResources();
      // Only this worker's requests touch its resources, and each answer comes after its follow-ups:
      // the versions read after one request are those the next one starts from.
      let before = await versionsOf(worker);
      for (let request = next(); request; request = next()) {
        // Gone (deregistered, or its host or infra-env was): a fresh set, so the run goes on.
        if (before.cluster === undefined || before.infraEnv === undefined || before.host === undefined) {
          worker = await createWorkerResources();
          workersRenewed += 1;
          before = await versionsOf(worker);
        }
        const sent = materialize(request, worker);
        const refused = refusal(request, sent);
        if (refused) {
          generatorRefused += 1;
          if (generatorRefusals.length < 10) generatorRefusals.push(`${describeRequest(request, sent)} → ${refused}`);
          continue;
        }
        const headers: Record<string, string> = {
          ...request.headers,
          ...(request.asUser ? asAdmin() : { 'X-Secret-Key': worker.agentToken }),
          ...(request.contentType ? { 'Content-Type': request.contentType } : {}),
        };
        const sentAt = performance.now();
        const { status, text } = await send(request.method, sent.path, headers, sent.body);
        const took = timeByOperation.get(request.operation) ?? { count: 0, ms: 0 };
        timeByOperation.set(request.operation, { count: took.count + 1, ms: took.ms + performance.now() - sentAt });
        const statusClass = status === 501 && text.includes('does not implement') ? '501 not implemented' : `${Math.floor(status / 100)}xx`;
        statuses.set(statusClass, (statuses.get(statusClass) ?? 0) + 1);
        answeredByOperation.set(request.operation, (answeredByOperation.get(request.operation) ?? new Set()).add(status));
        if (status === 501 && text.includes('does not implement')) {
          notImplemented.add(request.operation);
        } else if (status >= 500 || status < 200 || (status >= 300 && status < 400)) {
          failures.push(`${describeRequest(request, sent)} → ${status} ${text.slice(0, 300)}`);
        } else if (status >= 400) {
          // The router's validator refused what its twin here accepted: the generator or the twin is wrong.
          if (status === 400 && text.includes('"Invalid request: ')) {
            routerRefused += 1;
            if (routerRefusals.length < 10) routerRefusals.push(`${describeRequest(request, sent)} → ${text.slice(0, 300)}`);
          }
        }
        const after = await versionsOf(worker);
        if (status >= 400 && status < 500 && JSON.stringify(after) !== JSON.stringify(before))
          failures.push(`${describeRequest(request, sent)} → ${status} changed ${JSON.stringify(before)} to ${JSON.stringify(after)}: ${text.slice(0, 300)}`);
        before = after;
        if (status < 300 && (STARTS_BACKGROUND_WORK.has(request.operation) || ENDS_AGENT_TOKEN.has(request.operation))) {
          worker = await createWorkerResources();
          workersRenewed += 1;
          before = await versionsOf(worker);
        }
      }
    };
    await Promise.all(Array.from({ length: FUZZ_CONCURRENCY }, work));

    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const sent = [...statuses.values()].reduce((sum, n) => sum + n, 0);
    const succeeded = [...answeredByOperation].filter(([, answers]) => [...answers].some((status) => status < 300)).length;
    console.info(
      [
        `fuzzed ${FUZZ_VALID_RUNS} accepted requests (FUZZ_SEED=${FUZZ_SEED}, ${FUZZ_CONCURRENCY} workers) in ${seconds} s: ${sent} sent over ${answeredByOperation.size} of ${operations.length} operations (${succeeded} answered a 2xx at least once), answers ${JSON.stringify(Object.fromEntries(statuses))}`,
        `slowest answers (mean ms): ${[...timeByOperation]
          .sort((a, b) => b[1].ms - a[1].ms)
          .slice(0, 8)
          .map(([id, { count, ms }]) => `${id} ${Math.round(ms / count)} ×${count}`)
          .join(', ')}`,
        `never a 2xx: ${[...answeredByOperation]
          .filter(([, answers]) => ![...answers].some((status) => status < 300))
          .map(([id, answers]) => `${id} (${[...answers].sort().join('/')})`)
          .sort()
          .join(', ')}`,
        `resources re-created ${workersRenewed} times; not implemented (501): ${[...notImplemented].sort().join(', ') || 'none'}`,
        `the generator's requests the router's validator refuses: ${generatorRefused} here (not sent), ${routerRefused} at the router`,
        ...generatorRefusals.map((line) => `  refused here: ${line}`),
        ...routerRefusals.map((line) => `  refused by the router: ${line}`),
      ].join('\n'),
    );
    expect(failures.slice(0, 40), `replay with FUZZ_SEED=${FUZZ_SEED}`).toEqual([]);
    expect(answeredByOperation.size).toBe(operations.length);
  }, 1_800_000);
});
