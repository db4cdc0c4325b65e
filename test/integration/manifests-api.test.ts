/**
 * Cluster manifests through the local HTTP server with DynamoDB Local and s3rver: the happy
 * paths checked against openapi.yaml, bad input (never a 5xx, nothing half-written), the
 * pre-installation rule and organisation isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES } from '../../lambdas/domain/install/manifests.js';
import { clusterObjectPrefix } from '../../lambdas/domain/core/object-keys.js';
import { container } from '../../lambdas/platform/container.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { upstreamError } from '../support/upstream-errors.js';

type Json = Record<string, any>;
type Reply = { status: number; body: any; bytes: Buffer; headers: Headers };

const b64 = (text: string) => Buffer.from(text).toString('base64');
const CONFIG_MAP =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: default\ndata:\n  a: b\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: extra\n';
const PATCH = '- op: add\n  path: /metadata/labels/extra\n  value: "yes"\n';
const MISSING = '6f1c2f0e-0000-4000-8000-000000000000';

describe('cluster manifests API', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let version: string;

  const call = async (method: string, path: string, body?: unknown, token = env.adminToken, contentType = 'application/json'): Promise<Reply> => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${path}`, {
      method,
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'Content-Type': contentType } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const isJson = (response.headers.get('content-type') ?? '').includes('json');
    return { status: response.status, body: isJson && bytes.length ? JSON.parse(bytes.toString()) : undefined, bytes, headers: response.headers };
  };

  const newCluster = async (token = env.adminToken): Promise<string> => {
    const created = await call('POST', '/clusters', { name: 'manifests', openshift_version: version, pull_secret: PULL_SECRET }, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  };

  /** Everything stored for a cluster's manifests: records (any source) and objects. */
  const stored = async (clusterId: string, orgId = 'default') => ({
    records: (await container().store.manifests.listByCluster({ orgId, clusterId })).map((m) => `${m.folder}/${m.fileName}`).sort(),
    objects: (await container().blobs.list('files', `${clusterObjectPrefix(orgId, clusterId)}manifests/`)).map((key) => key.split('/manifests/')[1]).sort(),
  });

  const query = (fileName: string, folder?: string) => `file_name=${encodeURIComponent(fileName)}${folder ? `&folder=${folder}` : ''}`;

  beforeAll(async () => {
    env = await testRuntime();
    const versions = (await call('GET', '/openshift-versions')).body as object;
    version = Object.keys(versions)[0]!;
  }, 180_000);
  afterAll(async () => env?.close());

  it('creates, lists, downloads, updates and deletes manifests as upstream does', async () => {
    const id = await newCluster();
    const base = `/clusters/${id}/manifests`;

    const created = await call('POST', base, { file_name: '50-extra.yaml', content: b64(CONFIG_MAP) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expectMatchesSchema('V2CreateClusterManifest', 201, created.body);
    expect(created.body).toEqual({ folder: 'manifests', file_name: '50-extra.yaml', manifest_source: 'user' });

    const patch = await call('POST', base, { folder: 'openshift', file_name: '99-master.yaml.patch_labels', content: b64(PATCH) });
    expect(patch.status, JSON.stringify(patch.body)).toBe(201);
    const json = await call('POST', base, { folder: 'openshift', file_name: '10-x.json', content: b64('{"kind":"ConfigMap"}') });
    expect(json.status, JSON.stringify(json.body)).toBe(201);

    // Uploading the same name again replaces it (201, as upstream).
    const replaced = await call('POST', base, { file_name: '50-extra.yaml', content: b64(`${CONFIG_MAP}---\nkind: Secret\n`) });
    expect(replaced.status).toBe(201);

    const listed = await call('GET', base);
    expect(listed.status).toBe(200);
    expectMatchesSchema('V2ListClusterManifests', 200, listed.body);
    expect(listed.body).toEqual([
      { folder: 'manifests', file_name: '50-extra.yaml', manifest_source: 'user' },
      { folder: 'openshift', file_name: '10-x.json', manifest_source: 'user' },
      { folder: 'openshift', file_name: '99-master.yaml.patch_labels', manifest_source: 'user' },
    ]);

    const downloaded = await call('GET', `${base}/files?${query('50-extra.yaml')}`);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-type')).toBe('application/octet-stream');
    expect(downloaded.headers.get('content-disposition')).toBe('attachment; filename="50-extra.yaml"');
    expect(downloaded.bytes.toString()).toBe(`${CONFIG_MAP}---\nkind: Secret\n`);

    // A name beyond ASCII keeps the header ASCII, with the real name in filename* (RFC 6266).
    expect((await call('POST', base, { file_name: 'ünï.yaml', content: b64('u: 1\n') })).status).toBe(201);
    const unicode = await call('GET', `${base}/files?${query('ünï.yaml')}`);
    expect(unicode.headers.get('content-disposition')).toBe(`attachment; filename="_n_.yaml"; filename*=UTF-8''%C3%BCn%C3%AF.yaml`);
    expect(unicode.bytes.toString()).toBe('u: 1\n');
    expect((await call('DELETE', `${base}?${query('ünï.yaml')}`)).status).toBe(200);

    // Move and rename, keeping the content; then replace the content in place.
    const moved = await call('PATCH', base, {
      folder: 'manifests',
      file_name: '50-extra.yaml',
      updated_folder: 'openshift',
      updated_file_name: '51-extra.yml',
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expectMatchesSchema('V2UpdateClusterManifest', 200, moved.body);
    expect(moved.body).toEqual({ folder: 'openshift', file_name: '51-extra.yml', manifest_source: 'user' });
    const rewritten = await call('PATCH', base, { folder: 'openshift', file_name: '51-extra.yml', updated_content: b64('a: 1\n') });
    expect(rewritten.status, JSON.stringify(rewritten.body)).toBe(200);
    expect((await call('GET', `${base}/files?${query('51-extra.yml', 'openshift')}`)).bytes.toString()).toBe('a: 1\n');
    expect((await call('GET', `${base}/files?${query('50-extra.yaml')}`)).status).toBe(404);

    const deleted = await call('DELETE', `${base}?${query('51-extra.yml', 'openshift')}`);
    expect(deleted.status).toBe(200);
    expect(deleted.bytes.length).toBe(0);
    // Deleting what is no longer there succeeds too (upstream).
    expect((await call('DELETE', `${base}?${query('51-extra.yml', 'openshift')}`)).status).toBe(200);

    expect(await stored(id)).toEqual({
      records: ['openshift/10-x.json', 'openshift/99-master.yaml.patch_labels'],
      objects: ['openshift/10-x.json', 'openshift/99-master.yaml.patch_labels'],
    });
  });

  it("judges the cluster again when its first manifest arrives or its last goes: a third-party CNI's custom-manifests validation follows at once", async () => {
    const created = await call('POST', '/clusters', { name: 'cni', openshift_version: version, pull_secret: PULL_SECRET, network_type: 'Cilium' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const verdict = async () => {
      const info = JSON.parse((await call('GET', `/clusters/${id}`)).body.validations_info as string);
      return info.network.find((entry: Json) => entry.id === 'custom-manifests-requirements-satisfied');
    };
    expect(await verdict()).toMatchObject({ status: 'failure' });
    expect((await call('POST', `/clusters/${id}/manifests`, { folder: 'manifests', file_name: 'cni.yaml', content: b64(CONFIG_MAP) })).status).toBe(201);
    expect(await verdict()).toEqual({ id: 'custom-manifests-requirements-satisfied', status: 'success', message: 'Custom manifests are uploaded' });
    expect((await call('DELETE', `/clusters/${id}/manifests?${query('cni.yaml', 'manifests')}`)).status).toBe(200);
    expect(await verdict()).toMatchObject({ status: 'failure' });
  });

  it('lists system-generated manifests only when asked', async () => {
    const id = await newCluster();
    const objectKey = `clusters/${id}/manifests/openshift/50-system.yaml`;
    await container().blobs.put('files', objectKey, 'kind: ConfigMap\n');
    await container().store.manifests.create({
      orgId: 'default',
      clusterId: id,
      folder: 'openshift',
      fileName: '50-system.yaml',
      source: 'system',
      objectKey,
      createdAt: new Date().toISOString(),
    });

    expect((await call('GET', `/clusters/${id}/manifests`)).body).toEqual([]);
    const all = await call('GET', `/clusters/${id}/manifests?include_system_generated=true`);
    expectMatchesSchema('V2ListClusterManifests', 200, all.body);
    expect(all.body).toEqual([{ folder: 'openshift', file_name: '50-system.yaml', manifest_source: 'system' }]);
    expect((await call('GET', `/clusters/${id}/manifests/files?${query('50-system.yaml', 'openshift')}`)).bytes.toString()).toBe('kind: ConfigMap\n');
  });

  it('refuses bad input with a 4xx and a reason, never a 5xx, and writes nothing', async () => {
    const id = await newCluster();
    const base = `/clusters/${id}/manifests`;
    const keep = await call('POST', base, { file_name: 'keep.yaml', content: b64('a: 1\n') });
    expect(keep.status).toBe(201);
    const before = await stored(id);
    const create = (fields: Json) => JSON.stringify({ file_name: 'x.yaml', content: b64('a: 1\n'), ...fields });
    const oversize = b64(`"${'A'.repeat(MAX_MANIFEST_BYTES - 1)}"`);

    const cases: { name: string; method: string; path: string; body?: string; contentType?: string; expected: number; reason?: RegExp }[] = [
      { name: 'content not base64', method: 'POST', path: base, body: create({ content: 'not base64 content' }), expected: 400, reason: /not valid base64/ },
      { name: 'content empty', method: 'POST', path: base, body: create({ content: '   ' }), expected: 400, reason: /empty/ },
      { name: 'content missing', method: 'POST', path: base, body: JSON.stringify({ file_name: 'x.yaml' }), expected: 400, reason: /content/ },
      {
        name: 'invalid YAML',
        method: 'POST',
        path: base,
        body: create({ content: b64('invalid YAML content: {\n') }),
        expected: 400,
        reason: /invalid YAML format/,
      },
      {
        name: 'invalid second YAML document',
        method: 'POST',
        path: base,
        body: create({ file_name: 'x.yml', content: b64('a: 1\n---\nb: [\n') }),
        expected: 400,
        reason: /invalid YAML format/,
      },
      {
        name: 'invalid JSON',
        method: 'POST',
        path: base,
        body: create({ file_name: 'x.json', content: b64('{"a":') }),
        expected: 400,
        reason: /illegal JSON format/,
      },
      {
        name: 'patch that is no patch',
        method: 'POST',
        path: base,
        body: create({ file_name: 'x.yaml.patch', content: b64(CONFIG_MAP) }),
        expected: 400,
        reason: /Patch content/,
      },
      { name: 'over 1 MiB', method: 'POST', path: base, body: create({ file_name: 'x.json', content: oversize }), expected: 400, reason: /1 MiB/ },
      // Upstream's answer: 422 naming the cluster, for every operation on such a name.
      {
        name: 'name with a space',
        method: 'POST',
        path: base,
        body: create({ file_name: 'a b.yaml' }),
        expected: 422,
        reason: /should not include a space in its name/,
      },
      {
        name: 'rename to a name with a space',
        method: 'PATCH',
        path: base,
        body: JSON.stringify({ folder: 'manifests', file_name: 'keep.yaml', updated_file_name: 'a b.yaml' }),
        expected: 422,
        reason: /Cluster manifest a b.yaml for cluster .* should not include a space in its name\./,
      },
      { name: 'name without stem', method: 'POST', path: base, body: create({ file_name: '.yaml' }), expected: 400, reason: /dot/ },
      { name: 'name with a directory', method: 'POST', path: base, body: create({ file_name: 'openshift/x.yaml' }), expected: 400, reason: /file_name/ },
      { name: 'unsupported extension', method: 'POST', path: base, body: create({ file_name: 'x.txt' }), expected: 400, reason: /file_name/ },
      {
        name: 'patch with a suffix after it',
        method: 'POST',
        path: base,
        body: create({ file_name: 'x.yaml.patch.more' }),
        expected: 400,
        reason: /file_name/,
      },
      { name: 'unknown folder', method: 'POST', path: base, body: create({ folder: 'etc' }), expected: 400, reason: /folder/ },
      {
        name: 'name already in the other folder',
        method: 'POST',
        path: base,
        body: create({ folder: 'openshift', file_name: 'keep.yaml' }),
        expected: 400,
        reason: /only one of manifests and openshift/,
      },
      { name: 'not JSON', method: 'POST', path: base, body: '{"file_name":', expected: 400 },
      { name: 'wrong content type', method: 'POST', path: base, body: create({}), contentType: 'text/plain', expected: 415 },
      { name: 'bad cluster id', method: 'POST', path: '/clusters/nope/manifests', body: create({}), expected: 400, reason: /cluster_id/ },
      { name: 'unknown cluster', method: 'POST', path: `/clusters/${MISSING}/manifests`, body: create({}), expected: 404 },
      {
        name: 'update missing source',
        method: 'PATCH',
        path: base,
        body: JSON.stringify({ folder: 'manifests', file_name: 'gone.yaml', updated_content: b64('a: 1\n') }),
        expected: 404,
      },
      { name: 'update without folder', method: 'PATCH', path: base, body: JSON.stringify({ file_name: 'keep.yaml' }), expected: 400, reason: /folder/ },
      {
        name: 'update to a bad name',
        method: 'PATCH',
        path: base,
        body: JSON.stringify({ folder: 'manifests', file_name: 'keep.yaml', updated_file_name: '.yaml' }),
        expected: 400,
        reason: /dot/,
      },
      {
        name: 'update to JSON keeping YAML content',
        method: 'PATCH',
        path: base,
        body: JSON.stringify({ folder: 'manifests', file_name: 'keep.yaml', updated_file_name: 'keep.json' }),
        expected: 400,
        reason: /illegal JSON/,
      },
      {
        name: 'update with bad base64',
        method: 'PATCH',
        path: base,
        body: JSON.stringify({ folder: 'manifests', file_name: 'keep.yaml', updated_content: '!!' }),
        expected: 400,
        reason: /base64/,
      },
      {
        name: 'update with invalid YAML',
        method: 'PATCH',
        path: base,
        body: JSON.stringify({ folder: 'manifests', file_name: 'keep.yaml', updated_content: b64('a: [\n') }),
        expected: 400,
        reason: /YAML/,
      },
      { name: 'delete path traversal', method: 'DELETE', path: `${base}?${query('../../other/kubeconfig')}`, expected: 400, reason: /directory/ },
      { name: 'delete without file name', method: 'DELETE', path: base, expected: 400, reason: /file_name/ },
      { name: 'delete unknown folder', method: 'DELETE', path: `${base}?${query('keep.yaml', 'etc')}`, expected: 400, reason: /folder/ },
      { name: 'download path traversal', method: 'GET', path: `${base}/files?${query('../keep.yaml')}`, expected: 400, reason: /directory/ },
      {
        name: 'download control character',
        method: 'GET',
        path: `${base}/files?${query('a\r\nX-Injected: 1.yaml')}`,
        expected: 400,
        reason: /control characters/,
      },
      { name: 'download missing', method: 'GET', path: `${base}/files?${query('gone.yaml')}`, expected: 404, reason: /doesn't exist/ },
      { name: 'download from the wrong folder', method: 'GET', path: `${base}/files?${query('keep.yaml', 'openshift')}`, expected: 404 },
      { name: 'list bad flag', method: 'GET', path: `${base}?include_system_generated=perhaps`, expected: 400 },
    ];
    for (const c of cases) {
      const reply = await call(c.method, c.path, c.body, env.adminToken, c.contentType);
      expect(reply.status, `${c.name}: ${JSON.stringify(reply.body)}`).toBe(c.expected);
      expect(upstreamError(reply.body), c.name).toMatchObject({ code: String(c.expected) });
      if (c.reason) expect(upstreamError(reply.body)?.reason, c.name).toMatch(c.reason);
    }
    expect(await stored(id)).toEqual(before);
    expect((await call('GET', `${base}/files?${query('keep.yaml')}`)).bytes.toString()).toBe('a: 1\n');
  });

  it('refuses changes once the installation has started (400, as upstream) but still lists and downloads', async () => {
    const id = await newCluster();
    const base = `/clusters/${id}/manifests`;
    expect((await call('POST', base, { file_name: 'a.yaml', content: b64('a: 1\n') })).status).toBe(201);
    await container().store.clusters.mutate({ orgId: 'default', clusterId: id }, (c) => ({ ...c, status: 'installing' }));
    const before = await stored(id);

    for (const [method, path, body] of [
      ['POST', base, { file_name: 'b.yaml', content: b64('b: 1\n') }],
      ['PATCH', base, { folder: 'manifests', file_name: 'a.yaml', updated_content: b64('a: 2\n') }],
      ['DELETE', `${base}?${query('a.yaml')}`],
    ] as const) {
      const reply = await call(method, path, body);
      expect(reply.status, `${method}: ${JSON.stringify(reply.body)}`).toBe(400);
      expect(reply.body.reason).toMatch(/installing: manifests can be changed only before the installation starts/);
    }
    expect(await stored(id)).toEqual(before);
    expect((await call('GET', base)).body).toHaveLength(1);
    expect((await call('GET', `${base}/files?${query('a.yaml')}`)).bytes.toString()).toBe('a: 1\n');
  });

  it('lets read-only tokens read but not write', async () => {
    const id = await newCluster();
    const base = `/clusters/${id}/manifests`;
    expect((await call('POST', base, { file_name: 'a.yaml', content: b64('a: 1\n') })).status).toBe(201);
    const { token } = await createApiToken(container(), { orgId: 'default', name: 'reader', role: 'read-only' });
    expect((await call('GET', base, undefined, token)).status).toBe(200);
    expect((await call('GET', `${base}/files?${query('a.yaml')}`, undefined, token)).status).toBe(200);
    expect((await call('POST', base, { file_name: 'b.yaml', content: b64('b: 1\n') }, token)).status).toBe(403);
    expect((await call('PATCH', base, { folder: 'manifests', file_name: 'a.yaml', updated_file_name: 'c.yaml' }, token)).status).toBe(403);
    expect((await call('DELETE', `${base}?${query('a.yaml')}`, undefined, token)).status).toBe(403);
    expect((await call('GET', base, undefined, '')).status).toBe(401);
    expect(await stored(id)).toEqual({ records: ['manifests/a.yaml'], objects: ['manifests/a.yaml'] });
  });

  it("answers every manifest operation on another organisation's cluster with 404 and changes nothing", async () => {
    const id = await newCluster();
    const base = `/clusters/${id}/manifests`;
    expect((await call('POST', base, { file_name: 'a.yaml', content: b64('a: 1\n') })).status).toBe(201);
    const { ensureOrganisation } = await import('../../lambdas/usecases/organisations.js');
    await ensureOrganisation(container(), 'org-m', 'M');
    const orgM = (await createApiToken(container(), { orgId: 'org-m', name: 'm-admin', role: 'admin' })).token;
    const before = await stored(id);

    const attempts: [string, string, unknown?][] = [
      ['GET', base],
      ['POST', base, { file_name: 'b.yaml', content: b64('b: 1\n') }],
      ['PATCH', base, { folder: 'manifests', file_name: 'a.yaml', updated_content: b64('stolen: 1\n') }],
      ['DELETE', `${base}?${query('a.yaml')}`],
      ['GET', `${base}/files?${query('a.yaml')}`],
    ];
    for (const [method, path, body] of attempts) {
      const reply = await call(method, path, body, orgM);
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toMatchObject({ kind: 'Error', id: 404 });
    }
    expect(await stored(id)).toEqual(before);
    expect((await stored(id, 'org-m')).records).toEqual([]);
    expect((await call('GET', `${base}/files?${query('a.yaml')}`)).bytes.toString()).toBe('a: 1\n');
  });
});
