import { describe, expect, it } from 'vitest';
import type { Cluster, Manifest } from '../../lambdas/domain/core/entities.js';
import {
  contentDisposition,
  contentProblem,
  decodeManifestContent,
  editableProblem,
  fileNameProblem,
  fileNameSpaceProblem,
  manifestKind,
  MAX_MANIFEST_BYTES,
} from '../../lambdas/domain/install/manifests.js';
import type { BlobStore } from '../../lambdas/ports/blobs.js';
import { ConcurrentModificationError, type ManifestKey, type Store } from '../../lambdas/ports/store.js';
import { createManifest, deleteManifest, downloadManifest, listManifests, updateManifest, type ManifestDeps } from '../../lambdas/usecases/manifests.js';
import type { Principal } from '../../lambdas/usecases/principal.js';
import type { ClusterStatus } from '../../lambdas/domain/cluster/cluster-facts.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const b64 = (text: string) => Buffer.from(text).toString('base64');
const CONFIG_MAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\ndata:\n  a: b\n';

describe('manifest file names', () => {
  it.each(['99-x.yaml', 'a.yml', 'a.json', 'a.yaml.patch', 'a.yml.patch_foo', 'something.patch_else', 'é.yaml', 'back\\slash.yaml'])('accepts %j', (name) => {
    expect(fileNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', /empty/],
    ['.yaml', /start with a dot/],
    ['.yaml.patch', /start with a dot/],
    ['openshift/99-x.yaml', /directory/],
    ['../../other/kubeconfig', /directory/],
    ['a\n.yaml', /control characters/],
    ['a\t.yaml', /control characters/],
    [`${'a'.repeat(251)}.yaml`, /at most 255 bytes/],
  ])('refuses %j', (name, reason) => {
    expect(fileNameProblem(name)).toMatch(reason);
  });

  it("refuses a space apart, in upstream's words naming the cluster (it answers 422)", () => {
    expect(fileNameProblem('a b.yaml')).toBeUndefined();
    expect(fileNameSpaceProblem('a b.yaml', 'c1')).toBe('Cluster manifest a b.yaml for cluster c1 should not include a space in its name.');
    expect(fileNameSpaceProblem('ab.yaml', 'c1')).toBeUndefined();
  });

  it('reads the kind from the last extension, as upstream', () => {
    expect(manifestKind('a.yaml')).toBe('yaml');
    expect(manifestKind('a.yml')).toBe('yaml');
    expect(manifestKind('a.json')).toBe('json');
    expect(manifestKind('a.yaml.patch')).toBe('patch');
    expect(manifestKind('a.yaml.patch_x')).toBe('patch');
    expect(manifestKind('a.patch.something')).toBeUndefined();
    expect(manifestKind('a.YAML')).toBeUndefined();
    expect(manifestKind('a.txt')).toBeUndefined();
  });
});

describe('manifest content', () => {
  const decoded = (content: string | null | undefined) => decodeManifestContent(content, 'manifests/a.yaml');

  it('decodes standard base64, skipping line breaks as Go does', () => {
    const text = (content: string) => {
      const result = decoded(content);
      return 'bytes' in result ? Buffer.from(result.bytes).toString() : result.problem;
    };
    expect(text(b64('a: 1\n'))).toBe('a: 1\n');
    expect(text(b64(CONFIG_MAP).replace(/(.{20})/g, '$1\r\n'))).toBe(CONFIG_MAP);
  });

  it.each([
    [undefined, /missing/],
    [null, /missing/],
    ['   ', /empty/],
    ['not base64 content', /not valid base64/],
    ['YWI', /not valid base64/], // unpadded
    ['YW*=', /not valid base64/],
    ['YWJj\tZGVm', /not valid base64/],
  ])('refuses %j', (content, reason) => {
    expect(decoded(content)).toEqual({ problem: expect.stringMatching(reason) });
  });

  it.each([
    ['manifests/a.yaml', CONFIG_MAP],
    ['manifests/a.yml', '---\nfirst: one\n---\n---\n- second: two\n'],
    ['manifests/a.yaml', 'a: 1\na: 2\n'], // duplicate keys: yaml.v2 accepts them
    ['manifests/a.yaml', ''],
    ['manifests/a.json', '{"kind": "ConfigMap"}'],
    ['manifests/a.json', '42'],
    ['openshift/a.yaml.patch', '- op: add\n  path: /metadata/labels/x\n  value: y\n- op: move\n  from: /a\n  path: /b\n'],
    ['openshift/a.yml.patch_z', '[{"op": "remove", "path": "/data/a"}]'],
    ['openshift/a.yaml.patch', ''],
  ])('accepts %s: %j', (path, text) => {
    expect(contentProblem(bytes(text), path)).toBeUndefined();
  });

  it.each([
    ['manifests/a.yaml', 'invalid YAML content: {\n', /invalid YAML format/],
    ['manifests/a.yml', '---\nfirst: one\n---\ninvalid YAML content: {\n', /invalid YAML format/],
    ['manifests/a.yaml', 'a:\n\tb: 1\n', /invalid YAML format: Tabs/],
    ['manifests/a.yaml', 'a: *nowhere\n', /invalid YAML format: Unresolved alias/],
    ['manifests/a.json', 'not a valid JSON content', /illegal JSON format/],
    ['manifests/a.json', '\uFEFF{}', /illegal JSON format/],
    ['manifests/a.yaml.patch', CONFIG_MAP, /Patch content .* is invalid: a patch must be a list/],
    ['manifests/a.yaml.patch', '- just a string\n', /operation 1 must be a mapping/],
    ['manifests/a.yaml.patch', '- op: merge\n  path: /a\n', /op must be one of/],
    ['manifests/a.yaml.patch', '- op: add\n  path: a\n  value: 1\n', /path must be a JSON pointer/],
    ['manifests/a.yaml.patch', '- op: copy\n  path: /a\n', /copy needs "from"/],
    ['manifests/a.yaml.patch', '- op: add\n  path: [1\n', /Patch content .* is invalid/],
    ['manifests/a.txt', 'a: 1', /only \.yaml, \.yml, \.json and \.patch/],
  ])('refuses %s: %j', (path, text, reason) => {
    expect(contentProblem(bytes(text), path)).toMatch(reason);
  });

  it('refuses content that is not UTF-8', () => {
    expect(contentProblem(new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0xfe]), 'manifests/a.yaml')).toMatch(/not UTF-8/);
  });

  it('allows exactly 1 MiB and refuses one byte more', () => {
    const json = (size: number) => bytes(`"${'A'.repeat(size - 2)}"`);
    expect(contentProblem(json(MAX_MANIFEST_BYTES), 'manifests/a.json')).toBeUndefined();
    expect(contentProblem(json(MAX_MANIFEST_BYTES + 1), 'manifests/a.json')).toMatch(/over the maximum of 1 MiB/);
  });
});

describe('manifest rules', () => {
  it('allows changes only before the installation', () => {
    for (const status of ['pending-for-input', 'insufficient', 'ready']) expect(editableProblem('c', status)).toBeUndefined();
    for (const status of ['preparing-for-installation', 'installing', 'finalizing', 'installed', 'error', 'cancelled', 'adding-hosts']) {
      expect(editableProblem('c', status)).toMatch(/only before the installation starts/);
    }
  });

  it('names the download as upstream (Go %q) and keeps the header ASCII', () => {
    expect(contentDisposition('99-x.yaml')).toBe('attachment; filename="99-x.yaml"');
    expect(contentDisposition('a"b\\c.yaml')).toBe('attachment; filename="a\\"b\\\\c.yaml"');
    expect(contentDisposition('é.yaml')).toBe(`attachment; filename="_.yaml"; filename*=UTF-8''%C3%A9.yaml`);
  });
});

// ---- use cases against in-memory ports, with failures injected ---------------------------------

const ORG = 'org-a';
const CLUSTER = '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01';
const USER: Principal = { kind: 'user', orgId: ORG, tokenId: 't', role: 'user' };

function memoryPorts(status: ClusterStatus = 'ready') {
  const records = new Map<string, Manifest>();
  const objects = new Map<string, Uint8Array>();
  const id = (k: ManifestKey) => `${k.orgId}|${k.clusterId}|${k.folder}|${k.fileName}`;
  const faults = {
    create: undefined as Error | undefined,
    replace: undefined as Error | undefined,
    remove: undefined as Error | undefined,
    beforeCreate: undefined as (() => void) | undefined,
  };
  const cluster: Cluster = { orgId: ORG, clusterId: CLUSTER, name: 'c', status, createdAt: '', updatedAt: '', attributes: {}, version: 1 };
  const manifests = {
    get: async (k: ManifestKey) => structuredClone(records.get(id(k))),
    create: async (record: Omit<Manifest, 'version'>) => {
      faults.beforeCreate?.();
      if (faults.create) throw faults.create;
      if (records.has(id(record))) throw new ConcurrentModificationError('manifest');
      records.set(id(record), { ...record, version: 1 });
      return { ...record, version: 1 };
    },
    replace: async (record: Manifest) => {
      if (faults.replace) throw faults.replace;
      records.set(id(record), { ...record, version: record.version + 1 });
      return record;
    },
    mutate: async (k: ManifestKey, change: (m: Manifest) => Manifest | undefined) => {
      const current = records.get(id(k));
      if (!current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      return manifests.replace({ ...next, version: current.version });
    },
    remove: async (k: ManifestKey) => {
      if (faults.remove) throw faults.remove;
      records.delete(id(k));
    },
    listByCluster: async () => [...records.values()],
  };
  let storedCluster = cluster;
  const clusters = {
    get: async (k: { orgId: string }) => (k.orgId === ORG ? storedCluster : undefined),
    mutate: async (_: unknown, change: (current: typeof cluster) => typeof cluster | undefined) => {
      const next = change(storedCluster);
      if (next) storedCluster = { ...next, version: storedCluster.version + 1 };
      return storedCluster;
    },
  };
  // A change of the cluster's custom-manifest usage judges it again: a cluster without hosts here.
  const hosts = { listByCluster: async () => [] };
  const events = { appendAll: async () => undefined };
  const store = { clusters, manifests, hosts, events } as unknown as Store;
  const blobs = {
    put: async (_: string, key: string, body: Uint8Array) => void objects.set(key, body),
    get: async (_: string, key: string) => objects.get(key),
    remove: async (_: string, key: string) => void objects.delete(key),
  } as unknown as BlobStore;
  const deps: ManifestDeps = { store, blobs, clock: { now: () => new Date('2025-01-01T00:00:00Z') } };
  const text = (key: string) => (objects.has(key) ? Buffer.from(objects.get(key)!).toString() : undefined);
  return { deps, records, objects, faults, text };
}

const keyOf = (folder: string, file: string) => `orgs/${ORG}/clusters/${CLUSTER}/manifests/${folder}/${file}`;

describe('manifest use cases', () => {
  it('creates, replaces in place, lists in folder/name order and downloads', async () => {
    const { deps, text } = memoryPorts();
    await createManifest(deps, USER, CLUSTER, { folder: 'openshift', file_name: 'b.yaml', content: b64('b: 1\n') });
    expect(await createManifest(deps, USER, CLUSTER, { file_name: 'a.json', content: b64('{}') })).toEqual({
      folder: 'manifests',
      file_name: 'a.json',
      manifest_source: 'user',
    });
    await createManifest(deps, USER, CLUSTER, { folder: 'openshift', file_name: 'b.yaml', content: b64('b: 2\n') });
    expect(text(keyOf('openshift', 'b.yaml'))).toBe('b: 2\n');
    expect((await listManifests(deps, USER, CLUSTER)).map((m) => `${m.folder}/${m.file_name}`)).toEqual(['manifests/a.json', 'openshift/b.yaml']);
    expect(Buffer.from((await downloadManifest(deps, USER, CLUSTER, { folder: 'openshift', fileName: 'b.yaml' })).content).toString()).toBe('b: 2\n');
  });

  it('lists system manifests only when asked, and adopts one the user uploads over', async () => {
    const { deps, records } = memoryPorts();
    records.set(`${ORG}|${CLUSTER}|openshift|s.yaml`, {
      orgId: ORG,
      clusterId: CLUSTER,
      folder: 'openshift',
      fileName: 's.yaml',
      source: 'system',
      objectKey: keyOf('openshift', 's.yaml'),
      createdAt: '',
      version: 1,
    });
    expect(await listManifests(deps, USER, CLUSTER)).toEqual([]);
    expect(await listManifests(deps, USER, CLUSTER, { includeSystemGenerated: true })).toEqual([
      { folder: 'openshift', file_name: 's.yaml', manifest_source: 'system' },
    ]);
    await createManifest(deps, USER, CLUSTER, { folder: 'openshift', file_name: 's.yaml', content: b64('a: 1\n') });
    expect(await listManifests(deps, USER, CLUSTER)).toEqual([{ folder: 'openshift', file_name: 's.yaml', manifest_source: 'user' }]);
  });

  it('refuses a name already in the other folder, a locked cluster, another organisation and agents', async () => {
    const { deps } = memoryPorts();
    await createManifest(deps, USER, CLUSTER, { file_name: 'a.yaml', content: b64('a: 1\n') });
    await expect(createManifest(deps, USER, CLUSTER, { folder: 'openshift', file_name: 'a.yaml', content: b64('a: 1\n') })).rejects.toMatchObject({
      kind: 'bad-request',
      message: expect.stringMatching(/only one of manifests and openshift/),
    });
    await expect(listManifests(deps, { ...USER, orgId: 'org-b' }, CLUSTER)).rejects.toMatchObject({ kind: 'not-found' });
    await expect(listManifests(deps, { kind: 'agent', orgId: ORG, infraEnvId: 'i' }, CLUSTER)).rejects.toMatchObject({ kind: 'unauthorized' });
    const locked = memoryPorts('installing');
    await expect(createManifest(locked.deps, USER, CLUSTER, { file_name: 'a.yaml', content: b64('a: 1\n') })).rejects.toMatchObject({
      kind: 'bad-request',
      message: expect.stringMatching(/installing/),
    });
    await expect(deleteManifest(locked.deps, USER, CLUSTER, { fileName: 'a.yaml' })).rejects.toMatchObject({ kind: 'bad-request' });
  });

  it('removes the new content when the record cannot be written', async () => {
    const { deps, faults, objects, records } = memoryPorts();
    faults.create = new Error('DynamoDB is down');
    await expect(createManifest(deps, USER, CLUSTER, { file_name: 'a.yaml', content: b64('a: 1\n') })).rejects.toThrow('DynamoDB is down');
    expect(objects.size).toBe(0);
    expect(records.size).toBe(0);
  });

  it('puts the previous content back when replacing fails', async () => {
    const { deps, faults, records, text } = memoryPorts();
    records.set(`${ORG}|${CLUSTER}|manifests|s.yaml`, {
      orgId: ORG,
      clusterId: CLUSTER,
      folder: 'manifests',
      fileName: 's.yaml',
      source: 'system',
      objectKey: keyOf('manifests', 's.yaml'),
      createdAt: '',
      version: 1,
    });
    await deps.blobs.put('files', keyOf('manifests', 's.yaml'), bytes('old: 1\n'));
    faults.replace = new Error('DynamoDB is down');
    await expect(createManifest(deps, USER, CLUSTER, { file_name: 's.yaml', content: b64('new: 1\n') })).rejects.toThrow('DynamoDB is down');
    expect(text(keyOf('manifests', 's.yaml'))).toBe('old: 1\n');
  });

  it('keeps the content when a concurrent upload created the record first', async () => {
    const { deps, faults, records, text } = memoryPorts();
    faults.beforeCreate = () => {
      faults.beforeCreate = undefined;
      records.set(`${ORG}|${CLUSTER}|manifests|a.yaml`, {
        orgId: ORG,
        clusterId: CLUSTER,
        folder: 'manifests',
        fileName: 'a.yaml',
        source: 'user',
        objectKey: keyOf('manifests', 'a.yaml'),
        createdAt: '',
        version: 1,
      });
    };
    await createManifest(deps, USER, CLUSTER, { file_name: 'a.yaml', content: b64('mine: 1\n') });
    expect(text(keyOf('manifests', 'a.yaml'))).toBe('mine: 1\n');
    expect(records.size).toBe(1);
  });

  it('moves and renames, checking the kept content against the new name', async () => {
    const { deps, text, records } = memoryPorts();
    await createManifest(deps, USER, CLUSTER, { file_name: 'a.yaml', content: b64('a: 1\n') });
    await expect(updateManifest(deps, USER, CLUSTER, { folder: 'manifests', file_name: 'a.yaml', updated_file_name: 'a.json' })).rejects.toMatchObject({
      message: expect.stringMatching(/illegal JSON/),
    });
    const moved = await updateManifest(deps, USER, CLUSTER, {
      folder: 'manifests',
      file_name: 'a.yaml',
      updated_folder: 'openshift',
      updated_file_name: 'b.yml',
    });
    expect(moved).toEqual({ folder: 'openshift', file_name: 'b.yml', manifest_source: 'user' });
    expect(text(keyOf('openshift', 'b.yml'))).toBe('a: 1\n');
    expect(text(keyOf('manifests', 'a.yaml'))).toBeUndefined();
    expect([...records.values()].map((r) => `${r.folder}/${r.fileName}`)).toEqual(['openshift/b.yml']);
    await expect(updateManifest(deps, USER, CLUSTER, { folder: 'manifests', file_name: 'gone.yaml' })).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('undoes the target of a move when the source cannot be removed', async () => {
    const { deps, faults, text, records } = memoryPorts();
    await createManifest(deps, USER, CLUSTER, { file_name: 'a.yaml', content: b64('a: 1\n') });
    faults.remove = new Error('DynamoDB is down');
    await expect(updateManifest(deps, USER, CLUSTER, { folder: 'manifests', file_name: 'a.yaml', updated_file_name: 'b.yaml' })).rejects.toThrow(
      'DynamoDB is down',
    );
    // The source is intact; the undo's own record removal hit the same fault, so the target
    // stays whole (record and content) rather than listed without content.
    expect(text(keyOf('manifests', 'a.yaml'))).toBe('a: 1\n');
    for (const record of records.values()) expect(text(record.objectKey), record.fileName).toBe('a: 1\n');

    // When only the source removal fails, the target is gone entirely.
    faults.remove = undefined;
    await deleteManifest(deps, USER, CLUSTER, { fileName: 'b.yaml' });
    const removeOnce = deps.store.manifests.remove;
    deps.store.manifests.remove = async (key) => {
      deps.store.manifests.remove = removeOnce;
      throw new Error(`cannot remove ${key.fileName}`);
    };
    await expect(updateManifest(deps, USER, CLUSTER, { folder: 'manifests', file_name: 'a.yaml', updated_file_name: 'c.yaml' })).rejects.toThrow(
      'cannot remove a.yaml',
    );
    expect([...records.values()].map((r) => r.fileName)).toEqual(['a.yaml']);
    expect(text(keyOf('manifests', 'c.yaml'))).toBeUndefined();
  });

  it('deletes the record and the content; deleting what is not there succeeds', async () => {
    const { deps, objects, records } = memoryPorts();
    await createManifest(deps, USER, CLUSTER, { file_name: 'a.yaml', content: b64('a: 1\n') });
    await deleteManifest(deps, USER, CLUSTER, { fileName: 'a.yaml' });
    expect(records.size + objects.size).toBe(0);
    await expect(deleteManifest(deps, USER, CLUSTER, { fileName: 'a.yaml' })).resolves.toBeUndefined();
    await expect(downloadManifest(deps, USER, CLUSTER, { fileName: 'a.yaml' })).rejects.toMatchObject({ kind: 'not-found' });
  });
});
