/**
 * Bad input for every implemented operation: each is refused with a 4xx in the upstream error
 * shape and a reason, never a 5xx, and nothing is half-written.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';
import { upstreamError } from '../support/upstream-errors.js';

type Case = { name: string; method: string; path: string; body?: string; contentType?: string; expected: number; reason?: RegExp };

describe('bad input', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let clusterId: string;
  let infraEnvId: string;
  let version: string;

  /** Sent as written (fetch would resolve '.' and '..' segments before sending, as a browser does; curl --path-as-is does not). */
  const send = (c: Omit<Case, 'name' | 'expected'>) =>
    new Promise<{ status: number; body: any; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
      const url = new URL(env.runtime.url);
      const body = c.body === undefined ? undefined : Buffer.from(c.body);
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: c.method,
          path: `/api/assisted-install/v2${c.path}`,
          headers: {
            Authorization: `Bearer ${env.adminToken}`,
            ...(body ? { 'Content-Type': c.contentType ?? 'application/json', 'Content-Length': String(body.length) } : {}),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: response.headers }));
        },
      );
      request.setTimeout(30_000, () => request.destroy(new Error(`${c.method} ${c.path}: no answer in 30 s`)));
      request.on('error', reject);
      request.end(body);
    });

  beforeAll(async () => {
    env = await testRuntime();
    const versions = await (
      await fetch(`${env.runtime.url}/api/assisted-install/v2/openshift-versions`, { headers: { Authorization: `Bearer ${env.adminToken}` } })
    ).json();
    version = Object.keys(versions as object)[0]!;
    clusterId = (
      await send({ method: 'POST', path: '/clusters', body: JSON.stringify({ name: 'base', openshift_version: version, pull_secret: PULL_SECRET }) })
    ).body.id;
    infraEnvId = (await send({ method: 'POST', path: '/infra-envs', body: JSON.stringify({ name: 'base', pull_secret: PULL_SECRET, cluster_id: clusterId }) }))
      .body.id;
  }, 180_000);
  afterAll(async () => env?.close());

  const cluster = (extra: object) => JSON.stringify({ name: 'bad', openshift_version: version, pull_secret: PULL_SECRET, ...extra });
  const infra = (extra: object) => JSON.stringify({ name: 'bad', pull_secret: PULL_SECRET, ...extra });
  const missing = '6f1c2f0e-0000-4000-8000-000000000000';

  const cases = (): Case[] => [
    // register cluster
    { name: 'malformed JSON', method: 'POST', path: '/clusters', body: '{"name": "x",', expected: 400, reason: /not valid JSON/ },
    { name: 'body is not an object', method: 'POST', path: '/clusters', body: '[1,2]', expected: 400 },
    { name: 'missing required fields', method: 'POST', path: '/clusters', body: '{}', expected: 400, reason: /name|openshift_version|pull_secret/ },
    { name: 'wrong type', method: 'POST', path: '/clusters', body: cluster({ name: 42 }), expected: 400, reason: /name/ },
    {
      name: 'unknown enum value (the allowed ones listed)',
      method: 'POST',
      path: '/clusters',
      body: cluster({ high_availability_mode: 'Partial' }),
      expected: 400,
      reason: /high_availability_mode: must be one of Full, None/,
    },
    { name: 'bad cluster name', method: 'POST', path: '/clusters', body: cluster({ name: 'Bad_Name' }), expected: 400, reason: /lowercase/ },
    { name: 'unknown version', method: 'POST', path: '/clusters', body: cluster({ openshift_version: '3.11' }), expected: 400, reason: /not offered/ },
    { name: 'pull secret not JSON', method: 'POST', path: '/clusters', body: cluster({ pull_secret: 'hunter2' }), expected: 400, reason: /pull_secret/ },
    { name: 'pull secret without auths', method: 'POST', path: '/clusters', body: cluster({ pull_secret: '{"x":1}' }), expected: 400, reason: /auths/ },
    {
      name: 'bad CIDR (in words, not a regular expression)',
      method: 'POST',
      path: '/clusters',
      body: cluster({ cluster_network_cidr: '10.128.0.0/33' }),
      expected: 400,
      reason: /^Invalid request: cluster_network_cidr: must be an IPv4 or IPv6 network in CIDR notation, such as 192\.168\.111\.0\/24/,
    },
    {
      name: 'bad machine network (in words)',
      method: 'POST',
      path: '/clusters',
      body: cluster({ machine_networks: [{ cidr: '10.0.0.0/33' }] }),
      expected: 400,
      reason: /^Invalid request: machine_networks\/0\/cidr: must be an IPv4 or IPv6 network in CIDR notation/,
    },
    // Upstream creates clusters with overlapping or undersized networks (its validations fail them
    // later) and refuses them on update; a create refuses only a network list of the wrong shape.
    {
      name: 'dual-stack service networks, one cluster network',
      method: 'POST',
      path: '/clusters',
      body: cluster({ service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }], cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }] }),
      expected: 400,
      reason: /Expected 2 cluster networks, found 1/,
    },
    {
      name: 'update overlapping networks',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ service_networks: [{ cidr: '10.128.0.0/16' }] }),
      expected: 400,
      reason: /ServiceNetworkCidr and ClusterNetworkCidr: CIDRS 10\.128\.0\.0\/16 and 10\.128\.0\.0\/14 overlap/,
    },
    {
      name: 'update host prefix too long',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 30 }] }),
      expected: 400,
      reason: /Host prefix, now 30, must be less than or equal to 25/,
    },
    {
      name: 'Tang without servers',
      method: 'POST',
      path: '/clusters',
      body: cluster({ disk_encryption: { enable_on: 'all', mode: 'tang' } }),
      expected: 400,
      reason: /Setting Tang mode but tang_servers isn't set/,
    },
    {
      name: 'VIP DHCP allocation with platform none',
      method: 'POST',
      path: '/clusters',
      body: cluster({ vip_dhcp_allocation: true, platform: { type: 'none' } }),
      expected: 400,
      reason: /VIP Automatic Allocation.*None Platform Integration|None Platform Integration.*VIP Automatic Allocation/,
    },
    { name: 'bad VIP', method: 'POST', path: '/clusters', body: cluster({ api_vips: [{ ip: '999.1.1.1' }] }), expected: 400 },
    {
      name: 'same API and ingress VIP',
      method: 'POST',
      path: '/clusters',
      body: cluster({ api_vips: [{ ip: '192.168.1.5' }], ingress_vips: [{ ip: '192.168.1.5' }] }),
      expected: 400,
      reason: /appears both in apiVIPs and ingressVIPs/,
    },
    {
      name: 'VIPs for single node with user-managed networking',
      method: 'POST',
      path: '/clusters',
      body: cluster({ control_plane_count: 1, user_managed_networking: true, api_vips: [{ ip: '192.168.1.5' }], ingress_vips: [{ ip: '192.168.1.6' }] }),
      expected: 400,
      reason: /API VIPs cannot be set with User Managed Networking/,
    },
    {
      name: 'update VIPs no host network holds',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ api_vips: [{ ip: '192.168.127.5' }], ingress_vips: [{ ip: '192.168.127.6' }] }),
      expected: 400,
      reason: /No suitable matching CIDR found for VIP 192\.168\.127\.5/,
    },
    // Networks without a CIDR (the schema does not require one): the machine network's was a 500.
    ...(['cluster', 'service', 'machine'] as const).map(
      (kind): Case => ({
        name: `update ${kind} network without a CIDR`,
        method: 'PATCH',
        path: `/clusters/${clusterId}`,
        body: JSON.stringify({ [`${kind}_networks`]: [{}] }),
        expected: 400,
        reason: new RegExp(`^${kind[0]!.toUpperCase()}${kind.slice(1)} Network CIDR cannot be empty \\(index 0\\)$`),
      }),
    ),
    {
      name: 'create with a cluster network without a CIDR',
      method: 'POST',
      path: '/clusters',
      body: cluster({ cluster_networks: [{ host_prefix: 23 }] }),
      expected: 400,
      reason: /^Cluster Network CIDR cannot be empty \(index 0\)$/,
    },
    { name: 'update VIP without an IP', method: 'PATCH', path: `/clusters/${clusterId}`, body: JSON.stringify({ api_vips: [{}] }), expected: 400 },
    // Fields the schema does not declare, refused as upstream's decoder refuses them: one nested
    // 33 deep was stored as given and passed DynamoDB's 32 levels (a 500).
    {
      name: 'update with an unknown field nested 33 deep',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: `{"platform":{"type":"baremetal","external":{"deep":${'['.repeat(33)}${']'.repeat(33)}}}}`,
      expected: 400,
      reason: /^Invalid request: platform\/external: unknown field "deep"$/,
    },
    {
      name: 'update with an unknown top-level field',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ unknown_top: 5 }),
      expected: 400,
      reason: /unknown field "unknown_top"/,
    },
    {
      name: 'create with an unknown field (its long name cut short)',
      method: 'POST',
      path: '/clusters',
      body: cluster({ ['x'.repeat(10_000)]: 1 }),
      expected: 400,
      reason: /^Invalid request: unknown field "x{64}…"$/,
    },
    {
      name: 'infra-env update with an unknown proxy field',
      method: 'PATCH',
      path: `/infra-envs/${infraEnvId}`,
      body: JSON.stringify({ proxy: { http_proxy: '', zz: 1 } }),
      expected: 400,
      reason: /proxy: unknown field "zz"/,
    },
    {
      name: 'update machine network by hand',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ machine_networks: [{ cidr: '192.168.127.0/24' }] }),
      expected: 400,
      reason: /Setting the Machine Network CIDR is forbidden/,
    },
    {
      name: 'bad base domain',
      method: 'POST',
      path: '/clusters',
      body: cluster({ base_dns_domain: 'no_underscores.com' }),
      expected: 400,
      reason: /base_dns_domain/,
    },
    {
      name: 'bad SSH key',
      method: 'POST',
      path: '/clusters',
      body: cluster({ ssh_public_key: 'ssh-rsa notbase64!!' }),
      expected: 400,
      reason: /ssh_public_key/,
    },
    { name: 'bad proxy URL', method: 'POST', path: '/clusters', body: cluster({ http_proxy: 'ftp://proxy' }), expected: 400, reason: /http_proxy/ },
    { name: 'bad no_proxy', method: 'POST', path: '/clusters', body: cluster({ no_proxy: 'a,,b' }), expected: 400, reason: /no_proxy/ },
    { name: 'wrong content type', method: 'POST', path: '/clusters', body: cluster({}), contentType: 'text/plain', expected: 415, reason: /application\/json/ },
    // get / update / delete cluster
    { name: 'bad cluster UUID', method: 'GET', path: '/clusters/not-a-uuid', expected: 400, reason: /cluster_id/ },
    { name: 'unknown cluster', method: 'GET', path: `/clusters/${missing}`, expected: 404 },
    { name: 'update with wrong type', method: 'PATCH', path: `/clusters/${clusterId}`, body: JSON.stringify({ base_dns_domain: 7 }), expected: 400 },
    {
      name: 'update with a machine network by hand over the service network',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ machine_networks: [{ cidr: '172.30.0.0/24' }] }),
      expected: 400,
      reason: /Setting the Machine Network CIDR is forbidden/,
    },
    {
      name: 'update bad pull secret',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ pull_secret: '{"auths":{"r":{"auth":"bm9jb2xvbg=="}}}' }),
      expected: 400,
      reason: /user:password/,
    },
    {
      name: 'update to single node',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ control_plane_count: 1 }),
      expected: 400,
      reason: /dedicated control plane nodes for high availability mode Full/,
    },
    { name: 'delete bad UUID', method: 'DELETE', path: '/clusters/123', expected: 400 },
    { name: 'cluster hosts bad role filter', method: 'GET', path: `/clusters/${clusterId}/hosts?role=captain`, expected: 400 },
    // infra-envs
    { name: 'infra-env missing pull secret', method: 'POST', path: '/infra-envs', body: JSON.stringify({ name: 'x' }), expected: 400, reason: /pull_secret/ },
    { name: 'infra-env unknown cluster', method: 'POST', path: '/infra-envs', body: infra({ cluster_id: missing }), expected: 404 },
    { name: 'infra-env bad image type', method: 'POST', path: '/infra-envs', body: infra({ image_type: 'floppy' }), expected: 400 },
    {
      name: 'infra-env bad proxy',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ proxy: { https_proxy: 'socks5://x' } }),
      expected: 400,
      reason: /https_proxy/,
    },
    {
      name: 'infra-env bad trust bundle',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ additional_trust_bundle: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }),
      expected: 400,
      reason: /certificate/,
    },
    {
      name: 'infra-env bad ignition override',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ ignition_config_override: '{"ignition":{"version":"2.2.0"}}' }),
      expected: 400,
      reason: /Ignition/,
    },
    {
      name: 'infra-env bad static network YAML',
      method: 'POST',
      path: '/infra-envs',
      body: infra({
        static_network_config: [{ network_yaml: 'interfaces: [', mac_interface_map: [{ mac_address: '52:54:00:00:00:01', logical_nic_name: 'eth0' }] }],
      }),
      expected: 400,
      reason: /YAML/,
    },
    {
      name: 'infra-env bad MAC',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ static_network_config: [{ network_yaml: 'interfaces: []', mac_interface_map: [{ mac_address: 'zz:zz', logical_nic_name: 'eth0' }] }] }),
      expected: 400,
    },
    {
      name: 'infra-env wrong arch for cluster',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ cluster_id: clusterId, cpu_architecture: 'ppc64le' }),
      expected: 400,
      reason: /doesn't match the cluster/,
    },
    {
      name: 'infra-env bad kernel argument',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ kernel_arguments: [{ operation: 'append', value: 'a b; rm -rf /' }] }),
      expected: 400,
      reason: /kernel_arguments/,
    },
    { name: 'infra-env update unknown field type', method: 'PATCH', path: `/infra-envs/${infraEnvId}`, body: JSON.stringify({ image_type: 3 }), expected: 400 },
    { name: 'infra-env bad UUID', method: 'GET', path: '/infra-envs/xyz', expected: 400 },
    // Numbers the schema's type allows but no 64-bit integer (or no JavaScript number, exactly) holds: each was a 500.
    ...['1e20', '1e308', String(2 ** 53 + 2)].map(
      (value): Case => ({
        name: `infra-env network_discovery_delay_seconds ${value}`,
        method: 'PATCH',
        path: `/infra-envs/${infraEnvId}`,
        body: `{"network_discovery_delay_seconds": ${value}}`,
        expected: 400,
        reason: /network_discovery_delay_seconds/,
      }),
    ),
    // NTP sources are IP addresses or host names, as upstream checks them (a 300 KB one was stored; 1 MiB was a 500).
    {
      name: 'infra-env NTP source too long',
      method: 'PATCH',
      path: `/infra-envs/${infraEnvId}`,
      body: JSON.stringify({ additional_ntp_sources: 'a'.repeat(300_000) }),
      expected: 400,
      reason: /Invalid NTP source in additional_ntp_sources/,
    },
    {
      name: 'infra-env NTP sources with a space',
      method: 'PATCH',
      path: `/infra-envs/${infraEnvId}`,
      body: JSON.stringify({ additional_ntp_sources: '1.2.3.4, 5.6.7.8' }),
      expected: 400,
      reason: /Invalid NTP source/,
    },
    {
      name: 'cluster NTP source a URL',
      method: 'PATCH',
      path: `/clusters/${clusterId}`,
      body: JSON.stringify({ additional_ntp_source: 'http://time.example.com' }),
      expected: 400,
      reason: /Invalid NTP source in additional_ntp_source/,
    },
    {
      name: 'cluster NTP source with an underscore',
      method: 'POST',
      path: '/clusters',
      body: cluster({ additional_ntp_source: 'time_1.example.com' }),
      expected: 400,
      reason: /Invalid NTP source/,
    },
    // Names people read in lists and the audit trail: no lone surrogate (strict JSON parsers refused the list), no bidi override.
    {
      name: 'infra-env name with a lone surrogate',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ name: 'x' }).replace('"name":"x"', '"name":"a\\ud800b"'),
      expected: 400,
      reason: /lone UTF-16 surrogate/,
    },
    {
      name: 'infra-env named with a bidi override',
      method: 'POST',
      path: '/infra-envs',
      body: infra({ name: 'gpj.\u202eexe' }),
      expected: 400,
      reason: /U\+202E/,
    },
    {
      name: 'token name with a bidi override',
      method: 'POST',
      path: '/api-tokens',
      body: JSON.stringify({ name: 'ci\u202e', role: 'user' }),
      expected: 400,
      reason: /U\+202E/,
    },
    // Numbers DynamoDB cannot store, in a free-form value (the accepted-request fuzzing: a 500 from the store's marshalling or its range check).
    {
      name: 'a number above what the store holds, in a free-form value',
      method: 'PUT',
      path: `/clusters/${clusterId}/ui-settings`,
      body: '{"a":{"b":[9.829173929080957e61]}}',
      expected: 400,
      reason: /^a\.b\[0\] holds the number 9\.829173929080957e\+61, which the service cannot store/,
    },
    {
      name: 'a number below what the store holds',
      method: 'PUT',
      path: `/clusters/${clusterId}/ui-settings`,
      body: '{"tiny":1e-300}',
      expected: 400,
      reason: /tiny holds the number 1e-300/,
    },
    // Nested deeper than Go's JSON decoder takes (it overflowed our stack: a 500).
    {
      name: 'ui-settings nested 20,000 deep',
      method: 'PUT',
      path: `/clusters/${clusterId}/ui-settings`,
      body: `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
      expected: 400,
      reason: /more than 10000 levels deep/,
    },
    { name: 'image URL of unknown infra-env', method: 'GET', path: `/infra-envs/${missing}/downloads/image-url`, expected: 404 },
    // hosts
    { name: 'host bad UUID', method: 'GET', path: `/infra-envs/${infraEnvId}/hosts/nope`, expected: 400 },
    { name: 'unknown host', method: 'GET', path: `/infra-envs/${infraEnvId}/hosts/${missing}`, expected: 404 },
    {
      name: 'host update unknown role',
      method: 'PATCH',
      path: `/infra-envs/${infraEnvId}/hosts/${missing}`,
      body: JSON.stringify({ host_role: 'captain' }),
      expected: 400,
    },
    { name: 'bind without cluster', method: 'POST', path: `/infra-envs/${infraEnvId}/hosts/${missing}/actions/bind`, body: '{}', expected: 400 },
    {
      name: 'bind with a number for a body',
      method: 'POST',
      path: `/infra-envs/${infraEnvId}/hosts/${missing}/actions/bind`,
      body: '42',
      expected: 400,
      reason: /object/,
    },
    {
      name: 'host ignition with a number for a body (it was stored: 201)',
      method: 'PATCH',
      path: `/infra-envs/${infraEnvId}/hosts/${missing}/ignition`,
      body: '42',
      expected: 400,
      reason: /object/,
    },
    { name: 'host ignition with null for a body', method: 'PATCH', path: `/infra-envs/${infraEnvId}/hosts/${missing}/ignition`, body: 'null', expected: 400 },
    // tokens
    { name: 'token without name', method: 'POST', path: '/api-tokens', body: '{}', expected: 400, reason: /name/ },
    { name: 'token with unknown role', method: 'POST', path: '/api-tokens', body: JSON.stringify({ name: 'x', role: 'root' }), expected: 400 },
    {
      name: 'token expiring in the past',
      method: 'POST',
      path: '/api-tokens',
      body: JSON.stringify({ name: 'x', expires_at: '2001-01-01T00:00:00Z' }),
      expected: 400,
      reason: /future/,
    },
    { name: 'revoke malformed id', method: 'DELETE', path: '/api-tokens/not-a-token-id', expected: 400 },
    // Paths no operation may be routed by (each reached another resource or failed with a 500).
    {
      name: 'an id with a trailing encoded space (it deleted the cluster)',
      method: 'DELETE',
      path: `/clusters/${clusterId}%20`,
      expected: 400,
      reason: /whitespace/,
    },
    {
      name: "a '..' segment (it reached UpdateInfraEnv)",
      method: 'PATCH',
      path: `/infra-envs/${infraEnvId}/hosts/..`,
      body: JSON.stringify({ name: 'renamed' }),
      expected: 400,
      reason: /'\.' or '\.\.' segments/,
    },
    { name: "an encoded '..' segment", method: 'GET', path: `/infra-envs/${infraEnvId}/hosts/%2e%2e`, expected: 400, reason: /segments/ },
    { name: "a '.' segment", method: 'GET', path: `/infra-envs/${infraEnvId}/hosts/.`, expected: 400, reason: /segments/ },
    { name: "an encoded '%'", method: 'GET', path: '/clusters/%25', expected: 400, reason: /'%'/ },
    { name: 'an escape that is not UTF-8', method: 'GET', path: '/clusters/%FF%FE', expected: 400, reason: /'%'/ },
    { name: 'an encoded newline', method: 'GET', path: `/clusters/${clusterId}%0A`, expected: 400, reason: /control characters/ },
  ];

  it('answers successes, secret-bearing ones included, with no-store and nosniff', async () => {
    for (const path of [
      `/clusters/${clusterId}`,
      `/infra-envs/${infraEnvId}`,
      `/infra-envs/${infraEnvId}/downloads/files?file_name=discovery.ign`,
      '/api-tokens',
    ]) {
      const { status, headers } = await send({ method: 'GET', path });
      expect(status, path).toBe(200);
      expect({ path, cacheControl: headers['cache-control'], sniffing: headers['x-content-type-options'] }).toEqual({
        path,
        cacheControl: 'no-store',
        sniffing: 'nosniff',
      });
    }
  });

  /** The properties of a parameters schema openapi.yaml lets be null (a nullable enum too: upstream's go-swagger reads its null as nil, network_type and hyperthreading included). */
  const nullableFields = (schemaName: string): string[] => {
    const schema = (loadOpenApiDocument() as any).components.schemas[schemaName];
    return Object.entries(schema.properties as Record<string, { nullable?: boolean; enum?: unknown[] }>)
      .filter(([, property]) => property.nullable)
      .map(([name]) => name);
  };
  const allNull = (fields: string[]) => Object.fromEntries(fields.map((field) => [field, null]));
  /** What a resource's view says of these fields, without the ids nested entries carry. */
  const viewOf = (body: Record<string, unknown>, fields: string[]) =>
    JSON.parse(JSON.stringify(Object.fromEntries(fields.map((field) => [field, body[field]])), (key, value) => (key === 'cluster_id' ? undefined : value)));

  // upstream's Go decodes a null into a nil pointer, which its create and update handlers read as
  // "not given": PATCH {"service_network_cidr": null} was a 500 here (a TypeError in parseCidr).
  it('reads a null for a nullable field of a create or update as not given, as upstream does', async () => {
    const problems: string[] = [];
    const expectNothingChanged = async (label: string, path: string, schema: string) => {
      const fields = nullableFields(schema);
      const before = (await send({ method: 'GET', path })).body;
      const { status, body } = await send({ method: 'PATCH', path, body: JSON.stringify(allNull(fields)) });
      if (status !== 201) problems.push(`${label}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
      const after = (await send({ method: 'GET', path })).body;
      expect(viewOf(after, fields), label).toEqual(viewOf(before, fields));
    };
    await expectNothingChanged('cluster update', `/clusters/${clusterId}`, 'v2-cluster-update-params');
    await expectNothingChanged('infra-env update', `/infra-envs/${infraEnvId}`, 'infra-env-update-params');
    const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId });
    const hostId = randomUUID();
    const registered = await fetch(`${env.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}/hosts`, {
      method: 'POST',
      headers: { 'X-Secret-Key': agentToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ host_id: hostId }),
    });
    expect(registered.status).toBe(201);
    await expectNothingChanged('host update', `/infra-envs/${infraEnvId}/hosts/${hostId}`, 'host-update-params');

    // Created with every nullable field null: as created without them.
    const clusterFields = nullableFields('cluster-create-params');
    const created = await send({ method: 'POST', path: '/clusters', body: cluster(allNull(clusterFields)) });
    if (created.status !== 201) problems.push(`cluster create: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    else
      expect(viewOf(created.body, clusterFields), 'cluster create').toEqual(
        viewOf((await send({ method: 'GET', path: `/clusters/${clusterId}` })).body, clusterFields),
      );
    const createdInfraEnv = await send({ method: 'POST', path: '/infra-envs', body: infra(allNull(nullableFields('infra-env-create-params'))) });
    if (createdInfraEnv.status !== 201) problems.push(`infra-env create: ${createdInfraEnv.status} ${JSON.stringify(createdInfraEnv.body).slice(0, 300)}`);
    else expect(createdInfraEnv.body.cluster_id ?? null).toBeNull();
    expect(problems).toEqual([]);
    await send({ method: 'DELETE', path: `/infra-envs/${infraEnvId}/hosts/${hostId}` });
    if (created.status === 201) await send({ method: 'DELETE', path: `/clusters/${created.body.id}` });
    if (createdInfraEnv.status === 201) await send({ method: 'DELETE', path: `/infra-envs/${createdInfraEnv.body.id}` });
  });

  // The refusal came after a refresh of the host, which wrote it (the fuzzing of accepted requests
  // found the host's version moved by a 409).
  it('refuses to install a host of a cluster being created without writing the host', async () => {
    const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId });
    const hostId = randomUUID();
    const registered = await fetch(`${env.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}/hosts`, {
      method: 'POST',
      headers: { 'X-Secret-Key': agentToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ host_id: hostId }),
    });
    expect(registered.status).toBe(201);
    const key = { orgId: 'default', infraEnvId, hostId };
    // Silent for 4 minutes, and the monitor has not been by yet: a refresh would write it as disconnected.
    const before = await container().store.hosts.mutate(key, (host) => ({
      ...host,
      attributes: { ...host.attributes, checked_in_at: new Date(Date.now() - 4 * 60_000).toISOString() },
    }));
    const { status, body } = await send({ method: 'POST', path: `/infra-envs/${infraEnvId}/hosts/${hostId}/actions/install` });
    expect({ status, reason: body.reason }).toEqual({ status: 409, reason: expect.stringMatching(/install the cluster instead/) });
    expect((await container().store.hosts.get(key))?.version).toBe(before?.version);
    await send({ method: 'DELETE', path: `/infra-envs/${infraEnvId}/hosts/${hostId}` });
  });

  it('refuses each with the documented 4xx, an upstream error body and a reason', async () => {
    const clustersBefore = (await container().store.clusters.listByOrg('default')).length;
    const infraEnvsBefore = (await container().store.infraEnvs.listByOrg('default')).length;
    const failures: string[] = [];
    for (const c of cases()) {
      const { status, body, headers } = await send(c);
      const problems: string[] = [];
      if (headers['cache-control'] !== 'no-store' || headers['x-content-type-options'] !== 'nosniff')
        problems.push(`headers cache-control=${headers['cache-control']} x-content-type-options=${headers['x-content-type-options']}`);
      if (status !== c.expected) problems.push(`status ${status}, expected ${c.expected}`);
      if (status >= 500) problems.push('5xx');
      const error = upstreamError(body);
      if (!(error && error.code === String(status) && error.reason.length > 5)) problems.push(`body ${JSON.stringify(body)}`);
      if (c.reason && !c.reason.test(error?.reason ?? '')) problems.push(`reason "${error?.reason}" does not match ${c.reason}`);
      if (JSON.stringify(body ?? '').includes('not-a-real-password')) problems.push('reason leaks the pull secret');
      if (problems.length) failures.push(`${c.name}: ${problems.join('; ')}`);
    }
    expect(failures).toEqual([]);
    expect((await container().store.clusters.listByOrg('default')).length).toBe(clustersBefore);
    expect((await container().store.infraEnvs.listByOrg('default')).length).toBe(infraEnvsBefore);
    expect((await container().store.infraEnvs.get({ orgId: 'default', infraEnvId }))?.name).toBe('base');
  });
});
