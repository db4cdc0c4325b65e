/**
 * lambdas/domain is grouped by subject, and the groups import one way (docs/architecture.md draws
 * the picture): a group may use the groups on the floors below it, never one on its own floor or
 * above. That keeps each subject readable from the ground up: the host is understood without the
 * cluster, the cluster without the installation, and the agent protocol sits on top of them all.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, sources, specifiersOf } from '../support/import-graph.js';

const domainRoot = path.resolve(import.meta.dirname, '..', '..', 'lambdas', 'domain');
/** The wire, shared by the service, the agent and the CLI: below the domain's lowest floor. */
const contractsRoot = path.resolve(import.meta.dirname, '..', '..', 'contracts');

/** Each group's floor. The same table is drawn in docs/architecture.md. */
const FLOOR_OF_GROUP: Record<string, number> = {
  core: 0, // records, errors, the state-rule engine, validation ids
  catalogues: 1, // the data files and what reads them
  events: 1, // the event catalogue
  host: 2, // a host: states, rules, facts, inventory, validations
  auth: 3, // tokens, identities, organisations
  network: 3, // machine networks, VIPs, a cluster's host networks
  cluster: 4, // a cluster: states, rules, facts, validations
  image: 5, // the discovery image: ignition, ISO, initrd, iPXE, static networking
  install: 5, // install-config, installation, progress, logs, manifests
  agent: 6, // the agent ⇄ service protocol: step requests and replies
  judgement: 7, // the verdicts on a host and on a cluster: facts in, judgement out
};

/** Packages the domain may use: none does I/O or knows where it runs. */
const PACKAGES_THE_DOMAIN_MAY_USE = new Set([
  'ip-address', // CIDR and address arithmetic
  'yaml', // install-config and manifests
  'node:crypto', // hashes and random ids
  'node:path', // object keys
  'node:zlib', // ISO and initrd compression
]);

const groupOf = (file: string) => path.relative(domainRoot, file).split(path.sep)[0]!;

/** Imports between groups that go sideways or up: "host/a.ts → cluster/b.ts". */
function forbiddenDirections(edges: Map<string, string[]>, floorOf: Record<string, number>): string[] {
  const found: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const fromGroup = groupOf(from);
      const toGroup = groupOf(to);
      if (fromGroup === toGroup) continue;
      if (!(floorOf[toGroup]! < floorOf[fromGroup]!)) found.push(`${path.relative(domainRoot, from)} → ${path.relative(domainRoot, to)}`);
    }
  }
  return found.sort();
}

/** Imports of the modules under `root` that reach outside `within`, or a package not on the list. */
function importsLeaving(root: string, within: string[]): string[] {
  const found: string[] = [];
  for (const file of sources(root)) {
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      const relative = /^\.{1,2}\//.test(specifier);
      const target = path.resolve(path.dirname(file), specifier);
      const inside = within.some((folder) => !path.relative(folder, target).startsWith('..'));
      if (relative ? !inside : !PACKAGES_THE_DOMAIN_MAY_USE.has(specifier)) found.push(`${path.relative(root, file)} imports ${specifier}`);
    }
  }
  return found;
}

describe('the groups of lambdas/domain', () => {
  const files = sources(domainRoot);
  const edges = importGraph(domainRoot);

  it('holds every module in a known group, none loose at the top', () => {
    const outside = files.filter((file) => !(groupOf(file) in FLOOR_OF_GROUP)).map((file) => path.relative(domainRoot, file));
    expect(outside).toEqual([]);
    for (const group of Object.keys(FLOOR_OF_GROUP))
      expect(
        files.some((file) => groupOf(file) === group),
        group,
      ).toBe(true);
  });

  it('imports only downward between groups', () => {
    expect(forbiddenDirections(edges, FLOOR_OF_GROUP)).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(cycles(edges, domainRoot)).toEqual([]);
  });

  it('imports nothing from outside the domain but the wire contracts and the allowed packages', () => {
    expect(importsLeaving(domainRoot, [domainRoot, contractsRoot])).toEqual([]);
  });

  it('rests on wire contracts that import nothing of ours but each other', () => {
    expect(importsLeaving(contractsRoot, [contractsRoot])).toEqual([]);
  });

  it('reports an import that goes up or sideways, and a cycle', () => {
    const at = (name: string) => path.join(domainRoot, name);
    const upward = new Map([
      [at('host/a.ts'), [at('cluster/b.ts'), at('core/c.ts')]],
      [at('image/d.ts'), [at('install/e.ts')]],
      [at('cluster/b.ts'), [at('host/a.ts')]],
    ]);
    expect(forbiddenDirections(upward, FLOOR_OF_GROUP)).toEqual(['host/a.ts → cluster/b.ts', 'image/d.ts → install/e.ts']);
    expect(cycles(upward, domainRoot)).toEqual([['cluster/b.ts', 'host/a.ts']]);
  });
});
