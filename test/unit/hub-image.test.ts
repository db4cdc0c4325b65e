/**
 * The hub controller's image build context (`npm run build:hub`): one bundled ES module that Node
 * runs alone, outside the project (no node_modules), and the Containerfile that copies it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildHubImageContext } from '../../hub/build.js';

describe("the hub controller's image", () => {
  it('bundles the controller into one module that runs alone, and the Containerfile copies what the context holds', async () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'hub-image-'));
    onTestFinished(() => rmSync(outdir, { recursive: true, force: true }));
    const { bundle } = await buildHubImageContext({ outdir });
    expect(readdirSync(outdir).sort()).toEqual(['Containerfile', 'hub.mjs']);
    const containerfile = readFileSync(path.join(outdir, 'Containerfile'), 'utf8');
    const copied = [...containerfile.matchAll(/^COPY\s+(\S+)\s/gm)].map((match) => match[1]);
    expect(copied).toEqual(['hub.mjs']);
    expect(containerfile).toMatch(/^ENTRYPOINT \["node", "\/opt\/assisted\/hub\.mjs"\]$/m);

    // Run from a directory with no node_modules above it: everything it needs is in the file.
    const { KUBECONFIG: _kubeconfig, ASSISTED_URL: _url, ...env } = process.env;
    const run = (...args: string[]) => spawnSync(process.execPath, [bundle, ...args], { cwd: outdir, env, encoding: 'utf8', timeout: 30_000 });
    const help = run('--help');
    expect(help.status, help.stderr).toBe(0);
    for (const flag of ['--kubeconfig', '--namespace', '--assisted-url', '--token-secret', '--lease-namespace', '--resync-seconds'])
      expect(help.stdout).toContain(flag);
    const bare = run();
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain('--kubeconfig (or $KUBECONFIG) is required');
  }, 120_000);
});
