/**
 * The installer image's entrypoint (lib/containers/installer/run-installer.sh), run here with a
 * client mirror served on 127.0.0.1: it picks the release from the image tag, verifies the
 * archive's checksum, and starts the entry with the extracted openshift-install.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/assisted-stack.js';

const SCRIPT = join(PROJECT_ROOT, 'lib', 'containers', 'installer', 'run-installer.sh');
const RELEASE = 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64';

let root: string;
let server: Server;
let mirrorUrl: string;
const requests: string[] = [];

/** A mirror directory for `version` with an openshift-install that prints its version. */
function publish(version: string, options: { corruptSum?: boolean } = {}): void {
  const build = mkdtempSync(join(root, 'build-'));
  writeFileSync(join(build, 'openshift-install'), `#!/bin/sh\necho "openshift-install ${version}"\n`);
  chmodSync(join(build, 'openshift-install'), 0o755);
  const directory = join(root, 'mirror', version);
  mkdirSync(directory, { recursive: true });
  const archive = join(directory, 'openshift-install-linux.tar.gz');
  execFileSync('tar', ['-czf', archive, '-C', build, 'openshift-install']);
  const sum = options.corruptSum ? '0'.repeat(64) : createHash('sha256').update(readFileSync(archive)).digest('hex');
  writeFileSync(
    join(directory, 'sha256sum.txt'),
    `${'1'.repeat(64)}  openshift-client-linux-${version}.tar.gz\n${sum}  openshift-install-linux-${version}.tar.gz\n`,
  );
}

interface Run {
  code: number | null;
  output: string;
  seen?: { installer: string; version: string; override: string };
}

function run(env: Record<string, string>): Promise<Run> {
  const seenFile = join(mkdtempSync(join(root, 'run-')), 'seen.json');
  const entry = join(root, 'entry.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [SCRIPT], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TMPDIR: root,
        OPENSHIFT_MIRROR: mirrorUrl,
        INSTALLATION_FILES_ENTRY: entry,
        SEEN_FILE: seenFile,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let seen: Run['seen'];
      try {
        seen = JSON.parse(readFileSync(seenFile, 'utf8')) as Run['seen'];
      } catch {
        seen = undefined;
      }
      resolve({ code, output, seen });
    });
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'installer-entrypoint-'));
  // Stands in for installation-files.mjs: records what it was started with.
  writeFileSync(
    join(root, 'entry.mjs'),
    `import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const installer = process.env.OPENSHIFT_INSTALL;
writeFileSync(process.env.SEEN_FILE, JSON.stringify({ installer, version: execFileSync(installer, ['version'], { encoding: 'utf8' }).trim(), override: process.env.OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE ?? '' }));
`,
  );
  publish('4.16.3');
  publish('4.17.1', { corruptSum: true });
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    try {
      const body = readFileSync(join(root, 'mirror', decodeURIComponent(request.url ?? '').replace(/\.\.+/g, '')));
      response.writeHead(200).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mirrorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('installer entrypoint', { timeout: 60_000 }, () => {
  it("downloads the release's openshift-install, checks it and runs the entry with it", async () => {
    const result = await run({ RELEASE_IMAGE: RELEASE, OPENSHIFT_VERSION: '4.16' });
    expect(result.code, result.output).toBe(0);
    expect(result.seen!.version).toBe('openshift-install 4.16.3');
    expect(result.seen!.installer).toMatch(new RegExp(`^${root}/openshift-install-4\\.16\\.3\\.[^/]+/openshift-install$`));
    expect(result.seen!.override).toBe(RELEASE);
    expect(requests).toEqual(expect.arrayContaining(['/4.16.3/sha256sum.txt', '/4.16.3/openshift-install-linux.tar.gz']));
  });

  it('falls back to OPENSHIFT_VERSION when the release image is pinned by digest', async () => {
    const pinned = `quay.io/openshift-release-dev/ocp-release@sha256:${'a'.repeat(64)}`;
    const ok = await run({ RELEASE_IMAGE: pinned, OPENSHIFT_VERSION: '4.16.3' });
    expect(ok.code, ok.output).toBe(0);
    expect(ok.seen!.override).toBe(pinned);
    const unknown = await run({ RELEASE_IMAGE: pinned, OPENSHIFT_VERSION: '4.16' });
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('cannot tell the OpenShift release');
    expect(unknown.seen).toBeUndefined();
  });

  it('refuses an archive whose checksum does not match', async () => {
    const result = await run({ RELEASE_IMAGE: 'quay.io/openshift-release-dev/ocp-release:4.17.1-x86_64' });
    expect(result.code).toBe(1);
    expect(result.output).toContain('checksum mismatch');
    expect(result.seen).toBeUndefined();
  });

  it('fails with the URL when the mirror has no such release', async () => {
    const result = await run({ RELEASE_IMAGE: 'quay.io/openshift-release-dev/ocp-release:4.99.0-x86_64' });
    expect(result.code).toBe(1);
    expect(result.output).toContain(`${mirrorUrl}/4.99.0/sha256sum.txt`);
  });

  it('uses an openshift-install it is given without downloading', async () => {
    const before = requests.length;
    const given = join(root, 'given-openshift-install');
    writeFileSync(given, '#!/bin/sh\necho "openshift-install 4.15.0"\n');
    chmodSync(given, 0o755);
    const result = await run({ OPENSHIFT_INSTALL: given, RELEASE_IMAGE: RELEASE });
    expect(result.code, result.output).toBe(0);
    expect(result.seen).toEqual({ installer: given, version: 'openshift-install 4.15.0', override: RELEASE });
    expect(requests.length).toBe(before);
  });
});
