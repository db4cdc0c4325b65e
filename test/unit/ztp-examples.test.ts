/** The ZTP examples shipped in examples/ztp are what cli/ztp/examples.ts generates, and plan without errors. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_KINDS, exampleFiles, examplesDir } from '../../bin/ztp-examples.js';
import { formatManifestError, parseManifestFiles, readManifestDir } from '../../cli/ztp/manifests.js';
import { planFromManifests } from '../../cli/ztp/translate.js';

describe.each(EXAMPLE_KINDS)('examples/ztp/%s', (kind) => {
  const dir = path.join(examplesDir, kind);

  it('holds what the generator writes (npm run examples:ztp)', () => {
    const expected = exampleFiles(kind);
    expect(readdirSync(dir).sort()).toEqual(expected.map((f) => f.file).sort());
    for (const { file, text } of expected) expect(readFileSync(path.join(dir, file), 'utf8'), file).toBe(text);
  });

  it('plans a cluster and an infra-env without errors, as ztp apply reads it', () => {
    const parsed = parseManifestFiles(readManifestDir(dir));
    const planned = planFromManifests(parsed.documents);
    expect([...parsed.errors, ...planned.errors].map(formatManifestError)).toEqual([]);
    expect(planned.plan).toBeDefined();
  });
});
