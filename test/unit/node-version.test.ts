/**
 * One supported Node everywhere: package.json's engines and pinned `node` package, the Node the
 * suite runs on, the esbuild targets of the Lambda, CLI and agent bundles, the Lambda runtime, the
 * agent image, .ci/run and the README.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const packageJson = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
const major = (version: string) => Number(/(\d+)/.exec(version)![1]);

describe('the supported Node', () => {
  const supported = major(packageJson.engines.node);

  it('is a maintained release, pinned as the npm `node` package that npm scripts run on', () => {
    expect(supported).toBeGreaterThanOrEqual(22);
    expect(major(packageJson.devDependencies.node!)).toBe(supported);
    expect(packageJson.devDependencies['@types/node']).toMatch(new RegExp(`^${supported}\\.`));
    // npm test runs vitest through node_modules/.bin/node, whatever Node the machine has.
    expect(major(process.versions.node)).toBe(supported);
  });

  it('is what the lockfile records, so a fresh npm install leaves it as it is', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { engines?: unknown; dependencies?: unknown; devDependencies?: unknown }>;
    };
    const root = lock.packages['']!;
    expect(root.engines).toEqual(packageJson.engines);
    expect(root.devDependencies).toEqual(packageJson.devDependencies);
    expect(root.dependencies).toEqual((JSON.parse(read('package.json')) as { dependencies: unknown }).dependencies);
  });

  it('is what every bundle targets, the Lambda runtime, the agent image, .ci/run and the README', () => {
    for (const file of ['lib/esbuild-options.ts', 'cli/build.ts', 'agent/build.ts']) expect(read(file), file).toContain(`target: 'node${supported}'`);
    expect(read('lib/service-functions.ts')).toContain(`lambda.Runtime.NODEJS_${supported}_X`);
    expect(read('agent/Containerfile')).toContain(`FROM docker.io/library/node:${supported}-`);
    expect(read('.ci/run')).toContain('node_major" -lt 22'.replace('22', String(supported)));
    expect(read('README.md')).toContain(`**Node.js ${supported}**`);
    const stale = /Node(?:\.js)? ?(?:≥|>=)? ?20\b|node20|nodejs20/;
    for (const file of ['README.md', 'docs/cli.md', 'agent/README.md', 'lib/lambda-role.ts']) expect(read(file), file).not.toMatch(stale);
  });
});
