/**
 * Writes the ZTP example manifest sets of cli/ztp/examples.ts to examples/ztp/<kind>/, with a
 * placeholder pull secret and SSH key to replace (`npm run examples:ztp`). The suite checks the
 * files match the generator and that `assisted ztp apply --dry-run` accepts each set.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleManifests, type ExampleKind } from '../cli/ztp/examples.js';

export const EXAMPLE_KINDS: readonly ExampleKind[] = ['ha', 'sno', 'dual-stack'];
export const examplesDir = fileURLToPath(new URL('../examples/ztp/', import.meta.url));

/** Placeholders: a pull secret of the right shape (user:pass) and a syntactically valid ed25519 key. Replace both. */
export const EXAMPLE_PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"you@example.com"}}}';
export const EXAMPLE_SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB5t3HX/JGpWQZNwR+QcN3iiHK0OIljOPjRwuB+4f4zZ replace-with-your-key@example.com';

export function exampleFiles(kind: ExampleKind) {
  return exampleManifests(kind, { pullSecret: EXAMPLE_PULL_SECRET, sshPublicKey: EXAMPLE_SSH_KEY });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const kind of EXAMPLE_KINDS) {
    const dir = path.join(examplesDir, kind);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const { file, text } of exampleFiles(kind)) writeFileSync(path.join(dir, file), text);
    console.log(`${dir}: ${readdirSync(dir).join(', ')}`);
  }
}
