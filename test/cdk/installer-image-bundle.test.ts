/**
 * The installer image is built without the SIMULATED installer: its bundle keeps only the import
 * that would load it, which in the image fails instead of simulating. The embedded runtime's task
 * bundle (the same esbuild options without the exclusion) carries it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/catalogue.js';
import { esbuildOptions } from '../../lib/esbuild-options.js';
import { installerImageBundleOptions } from '../../lib/installer-task.js';

const ENTRY = 'lambdas/containers/installation-files.ts';
const LOADS_SIMULATION = /import\(\s*["']\.\/simulated-installer\.js["']\s*\)/;

describe('the installer task bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'installer-bundle-'));

  it('leaves the SIMULATED installer out of the image, and keeps it in the embedded runtime', () => {
    const image = join(dir, 'image.mjs');
    buildSync(installerImageBundleOptions(PROJECT_ROOT, ENTRY, image));
    const imageCode = readFileSync(image, 'utf8');
    expect(imageCode).toMatch(LOADS_SIMULATION);
    expect(imageCode).not.toContain('SIMULATED installer');
    expect(imageCode).not.toContain('X509CertificateGenerator');

    const local = join(dir, 'local.mjs');
    buildSync(esbuildOptions(PROJECT_ROOT, ENTRY, local, false));
    const localCode = readFileSync(local, 'utf8');
    expect(localCode).not.toMatch(LOADS_SIMULATION);
    expect(localCode).toContain('SIMULATED installer');
    expect(imageCode.length).toBeLessThan(localCode.length);
  }, 60_000);
});
