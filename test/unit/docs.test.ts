/**
 * The documents in docs/ name files and state counts; both drift as the code moves. This fails
 * when a file a document names does not exist (in backticks, or in a drawing's code block), when a
 * count of host or cluster validations differs from the catalogue, and when the cache table of
 * runtime-model.md misses a cache of lambdas/ports/local-caches.json or names one it does not hold.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLUSTER_VALIDATION_IDS, HOST_VALIDATION_IDS } from '../../lambdas/domain/core/validation-ids.js';
import localCaches from '../../lambdas/ports/local-caches.json' with { type: 'json' };

const projectRoot = path.resolve(import.meta.dirname, '..', '..');
const docsRoot = path.join(projectRoot, 'docs');
/**
 * Every file and folder of the project, relative to its root: what git holds or would take (ignored
 * build and run outputs such as dist/ are not the project's, whether or not this checkout has them).
 */
function projectTree(): { files: string[]; folders: string[] } {
  const listing = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: projectRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = listing.split('\0').filter((file) => file !== '' && existsSync(path.join(projectRoot, file)));
  const folders = new Set<string>();
  for (const file of files) {
    for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1)) folders.add(file.slice(0, slash));
  }
  return { files, folders: [...folders] };
}

/**
 * Names the documents give that are not files of this project, each with why: files of upstream or
 * of the user, objects in the buckets, and what a build or a run writes.
 */
const NOT_PROJECT_FILES: Record<string, string> = {
  'swagger.yaml': "upstream's API document (openapi.yaml is converted from it)",
  'cluster-manifests/infraenv.yaml': 'a ZTP manifest the user writes',
  'nmstateconfig.yaml': 'a ZTP manifest the user writes',
  'agent-config.yaml': "a manifest of the agent-based installer's, which the user writes",
  'dist/assisted.mjs': 'the CLI bundle the build writes',
  'deploy/podman/configmap.yml': "upstream's on-premises configuration (the oracle's release list comes from it)",
  'data/default_release_images.json': "upstream's default release list (the oracle's is the same)",
  'data/default_release_sources.json': "upstream's default release sources (the stable channels it reads payloads from)",
  'hub.mjs': "the hub controller's bundle npm run build:hub writes into dist/hub-image/",
  'contracts/api.ts': 'generated from openapi.yaml (npm install and npm test run generate:contracts)',
  'test-results/console/first-load.json': 'what the console tests write',
  '.conformance/differences.json': 'what a conformance run writes',
  '.conformance/ci/': 'what a conformance run writes',
  'orgs/': 'a prefix of the objects in the buckets',
  'base-images/': 'a prefix of the objects in the buckets',
  'assisted-installer/': "a folder of upstream's console (assisted-installer-ui)",
  'ocm/components/clusterWizard/disconnected/': "a folder of upstream's console (assisted-installer-ui)",
  'checkpoints.json': "what the local stream poller writes in the runtime's data folder",
};

/** Backticked names that look like a file or a folder: `lambdas/usecases/clusters.ts`, `bench/support/`, `openapi.yaml`. */
function namedPaths(markdown: string): string[] {
  const names = new Set<string>();
  const looksLikePath = (token: string) =>
    /^[\w.@-][\w./@-]*$/.test(token) && (/\.(ts|mts|mjs|js|json|yaml|yml|md|sh)$/.test(token) || (token.endsWith('/') && token.length > 1));
  for (const match of markdown.matchAll(/`([^`\n]+)`/g)) {
    const token = match[1]!.replace(/:\d+(-\d+)?$/, '');
    if (looksLikePath(token)) names.add(token);
  }
  // Drawings name modules in code blocks: those with a folder in them.
  for (const block of markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g)) {
    for (const match of block[1]!.matchAll(/(?<![\w./$~-])((?:[\w.-]+\/)+[\w.-]+\.(?:ts|json|yaml))\b/g)) names.add(match[1]!);
  }
  return [...names];
}

/** Whether a name is a file or folder of the project, as written or as the end of a longer path (`usecases/clusters.ts`). */
function existsInProject(name: string, tree: { files: string[]; folders: string[] }): boolean {
  const isSuffix = (candidate: string, wanted: string) => candidate === wanted || candidate.endsWith(`/${wanted}`);
  if (name.endsWith('/')) return tree.folders.some((folder) => isSuffix(folder, name.slice(0, -1)));
  return tree.files.some((file) => isSuffix(file, name));
}

const documents = readdirSync(docsRoot)
  .filter((name) => name.endsWith('.md'))
  .map((name) => ({ name, text: readFileSync(path.join(docsRoot, name), 'utf8') }));

describe('the documents in docs/', () => {
  it('name only files and folders that exist', () => {
    const tree = projectTree();
    const missing = documents.flatMap(({ name, text }) =>
      namedPaths(text)
        .filter((named) => !(named in NOT_PROJECT_FILES) && !existsInProject(named, tree))
        .map((named) => `${name}: ${named}`),
    );
    expect(missing).toEqual([]);
  });

  it('excuse only names that some document gives and the project does not hold', () => {
    const tree = projectTree();
    const named = new Set(documents.flatMap(({ text }) => namedPaths(text)));
    expect(Object.keys(NOT_PROJECT_FILES).filter((name) => !named.has(name) || existsInProject(name, tree))).toEqual([]);
  });

  it('count the host and cluster validations as the catalogue does', () => {
    const counts = { host: HOST_VALIDATION_IDS.length, cluster: CLUSTER_VALIDATION_IDS.length };
    const wrong: string[] = [];
    let found = 0;
    for (const { name, text } of documents) {
      const prose = text.replace(/\s+/g, ' ');
      for (const match of prose.matchAll(/\b(\d+) (?:upstream )?(host|cluster) validations\b/g)) {
        found += 1;
        if (Number(match[1]) !== counts[match[2] as 'host' | 'cluster'])
          wrong.push(`${name}: "${match[0]}", but the catalogue has ${counts[match[2] as 'host' | 'cluster']}`);
      }
      // A count of validations that does not say whose cannot be checked: say "host" or "cluster".
      for (const match of prose.matchAll(/\b(\d+) (?:upstream )?validations\b/g)) wrong.push(`${name}: "${match[0]}" does not say whose validations`);
    }
    expect(wrong).toEqual([]);
    expect(found).toBeGreaterThan(0);
  });

  it('list every local cache in runtime-model.md, and no other', () => {
    const runtimeModel = documents.find(({ name }) => name === 'runtime-model.md')!.text;
    const tableStart = runtimeModel.indexOf('| cache (local-caches.json) |');
    expect(tableStart).toBeGreaterThan(0);
    const rows = runtimeModel.slice(tableStart).split('\n\n')[0]!.split('\n').slice(2);
    const named = rows.map((row) => /^\| `([\w-]+)` \|/.exec(row)?.[1]).filter((name) => name !== undefined);
    expect(named.sort()).toEqual(Object.keys(localCaches).sort());
  });

  it('finds the names a document gives, in prose and in drawings', () => {
    const markdown = [
      'See `lambdas/usecases/clusters.ts:12` and `bench/support/`, not `npm test` or `$TMPDIR/x.json`.',
      '```',
      '  handlers/   map errors (handlers/api/errors.ts)',
      '```',
    ].join('\n');
    expect(namedPaths(markdown).sort()).toEqual(['bench/support/', 'handlers/api/errors.ts', 'lambdas/usecases/clusters.ts']);
  });
});
