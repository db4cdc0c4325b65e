/**
 * Discovery ISOs composed in S3, end to end through the local runtime: SYNTHETIC base ISOs built
 * with xorriso are imported into the images bucket, an infra-env's image URL is signed, the image
 * service redirects to a presigned GET of the object composed with UploadPartCopy, and the download
 * is checked with real tools (isoinfo, gunzip, cpio, ignition-validate) and byte by byte against
 * its base. Tokens: expired or forged 401, another infra-env's 404; no base ISO 409.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../lib/catalogue.js';
import { buildSyntheticBaseIso, importBaseIsoFile, localImportTarget, type ImportResult } from '../../bin/import-base-iso.js';
import { container } from '../../lambdas/platform/container.js';
import { ensureDiscoveryImage, newMeter, signImageToken } from '../../lambdas/usecases/discovery-image.js';
import { PULL_SECRET, sshPublicKey, NETWORK_YAML } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

const MiB = 1024 * 1024;
const STATIC_NETWORK = [{ network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] }];

type Reply = { status: number; body: any; text: string; bytes: Buffer; headers: Headers };

/** The local catalogue, with the image service function until lambdas/functions.json lists it. */
function catalogueWithImages() {
  const catalogue = loadCatalogue();
  if (!catalogue.functions.some((fn) => fn.name === 'Images')) {
    catalogue.functions.push({ name: 'Images', entry: 'lambdas/handlers/images/index.ts', handler: 'handler', kind: 'api' });
  }
  return catalogue;
}

describe('discovery images composed in S3', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let work: string;
  let version: string;
  const bases: Record<string, { file: string; imported: ImportResult }> = {};

  const call = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = { Authorization: `Bearer ${env.adminToken}` },
  ): Promise<Reply> => {
    const response = await fetch(url.startsWith('http') ? url : `${env.runtime.url}/api/assisted-install/v2${url}`, {
      method,
      redirect: 'manual',
      headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const isJson = (response.headers.get('content-type') ?? '').includes('json');
    return {
      status: response.status,
      body: isJson && bytes.length ? JSON.parse(bytes.toString()) : undefined,
      text: bytes.toString(),
      bytes,
      headers: response.headers,
    };
  };
  const newInfraEnv = async (extra: Record<string, unknown> = {}): Promise<{ id: string; url: string }> => {
    const created = await call('POST', '/infra-envs', { name: 'discovery', pull_secret: PULL_SECRET, openshift_version: version, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const image = await call('GET', `/infra-envs/${created.body.id}/downloads/image-url`);
    expect(image.status, image.text).toBe(200);
    return { id: created.body.id, url: image.body.url };
  };
  /** Follows the image service's redirect to S3 and downloads the object. */
  const download = async (url: string): Promise<{ redirect: Reply; bytes: Buffer; location: string }> => {
    const redirect = await call('GET', url, undefined, {});
    expect(redirect.status, redirect.text).toBe(302);
    const location = redirect.headers.get('location')!;
    const object = await fetch(location);
    expect(object.status).toBe(200);
    return { redirect, bytes: Buffer.from(await object.arrayBuffer()), location };
  };
  const saved = (bytes: Buffer, name: string) => {
    const file = path.join(work, `${randomUUID()}-${name}`);
    writeFileSync(file, bytes);
    return file;
  };
  const isoFile = (iso: string, isoPath: string) => execFileSync('isoinfo', ['-i', iso, '-x', isoPath], { maxBuffer: 64 * MiB });
  /** Unpacks the first gzip+cpio archive of an embed area with GNU cpio; returns the files. */
  const unpackArea = (area: Buffer): Record<string, Buffer> => {
    const into = mkdtempSync(path.join(work, 'unpack-'));
    // gunzip stops at the zero padding after the archive, as the kernel's unpacker does.
    execFileSync('cpio', ['-i', '-d', '--quiet', '--no-absolute-filenames'], { cwd: into, input: gunzipSync(area) });
    const files: Record<string, Buffer> = {};
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else files[path.relative(into, full)] = readFileSync(full);
      }
    };
    walk(into);
    return files;
  };
  /** The discovery ignition with the agent token (freshly signed on each issue) masked. */
  const withoutToken = (ignition: string) => {
    const config = JSON.parse(ignition);
    for (const unit of config.systemd.units) if (unit.contents) unit.contents = unit.contents.replace(/PULL_SECRET_TOKEN=\S+/, 'PULL_SECRET_TOKEN=…');
    return config;
  };
  const ignitionValidate = (text: string) => spawnSync('/usr/bin/ignition-validate', [saved(Buffer.from(text), 'config.ign')], { encoding: 'utf8' });
  /** Offsets where two equally long buffers differ, as [first, last] of each differing run. */
  const differences = (a: Buffer, b: Buffer): [number, number][] => {
    expect(a.length).toBe(b.length);
    const runs: [number, number][] = [];
    for (let i = 0; i < a.length; i++) {
      if (a[i] === b[i]) continue;
      const last = runs.at(-1);
      if (last && last[1] === i - 1) last[1] = i;
      else runs.push([i, i]);
    }
    return runs;
  };

  beforeAll(async () => {
    // Base ISOs are imported here; a missing one must stay a 409, as in AWS.
    env = await testRuntime({ catalogue: catalogueWithImages(), syntheticBaseImages: false });
    work = mkdtempSync(path.join(tmpdir(), 'discovery-image-'));
    const created = await call('POST', '/infra-envs', { name: 'probe', pull_secret: PULL_SECRET });
    version = String(created.body.openshift_version).split('.').slice(0, 2).join('.');
    const target = localImportTarget(env.runtime.endpoints.s3);
    try {
      for (const [type, size] of [
        ['full-iso', 24 * MiB],
        ['minimal-iso', 0],
      ] as const) {
        const file = await buildSyntheticBaseIso({ version, arch: 'x86_64', type, outFile: path.join(work, `base-${type}.iso`), sizeBytes: size });
        bases[type] = { file, imported: await importBaseIsoFile(target, { file, version, arch: 'x86_64', type, synthetic: true, source: 'test' }) };
      }
    } finally {
      target.close();
    }
  }, 120_000);
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await env?.close();
  });

  it('composes the full ISO: isoinfo → gunzip → cpio yields our config.ign, byte-identical to the base elsewhere', async () => {
    const { id, url } = await newInfraEnv({ ssh_authorized_key: sshPublicKey(), proxy: { http_proxy: 'http://proxy.example.com:3128' } });
    expect(url).toMatch(
      new RegExp(`^${env.runtime.url}/api/assisted-images/images/${id}\\?arch=x86_64&image_token=[^&]+&type=full-iso&version=${version.replace('.', '\\.')}$`),
    );
    const { bytes, redirect } = await download(url);
    // The base ISOs imported here are SYNTHETIC ones: the file name says so.
    expect(redirect.headers.get('content-disposition')).toBe('attachment; filename="discovery-full-iso-SYNTHETIC.iso"');
    expect(redirect.headers.get('x-assisted-base-image')).toMatch(/SYNTHETIC/);
    const iso = saved(bytes, 'full.iso');

    const embedded = unpackArea(isoFile(iso, '/IMAGES/IGNITION.IMG;1'));
    expect(Object.keys(embedded)).toEqual(['config.ign']);
    const served = await call('GET', `/infra-envs/${id}/downloads/files?file_name=discovery.ign`);
    expect(withoutToken(embedded['config.ign']!.toString())).toEqual(withoutToken(served.text));
    const validation = ignitionValidate(embedded['config.ign']!.toString());
    expect(`${validation.stdout}${validation.stderr}`).toBe('');
    expect(validation.status).toBe(0);
    // The token baked into the image opens this infra-env for its agent.
    const agentUnit: string = JSON.parse(embedded['config.ign']!.toString()).systemd.units.find(
      (unit: { name: string }) => unit.name === 'agent.service',
    ).contents;
    const token = /^Environment=PULL_SECRET_TOKEN=(\S+)$/m.exec(agentUnit)![1]!;
    expect((await call('GET', `/infra-envs/${id}`, undefined, { 'X-Secret-Key': token })).status).toBe(200);

    // Only the Ignition area changed; kargs are the base's (no kernel_arguments).
    const base = readFileSync(bases['full-iso']!.file);
    const area = bases['full-iso']!.imported.info.layout.ignition;
    for (const [first, last] of differences(base, bytes)) {
      expect(first).toBeGreaterThanOrEqual(area.offset);
      expect(last).toBeLessThan(area.offset + area.length);
    }
  });

  it('reuses an identical composition, composes anew when the infra-env changes, and records the event once per image', async () => {
    const { id, url } = await newInfraEnv();
    const first = await download(url);
    const again = await download((await call('GET', `/infra-envs/${id}/downloads/image-url`)).body.url);
    expect(new URL(again.location).pathname).toBe(new URL(first.location).pathname);

    expect((await call('PATCH', `/infra-envs/${id}`, { ssh_authorized_key: sshPublicKey('new@example.com') })).status).toBe(201);
    const changed = await download((await call('GET', `/infra-envs/${id}/downloads/image-url`)).body.url);
    expect(new URL(changed.location).pathname).not.toBe(new URL(first.location).pathname);
    expect(unpackArea(isoFile(saved(changed.bytes, 'changed.iso'), '/IMAGES/IGNITION.IMG;1'))['config.ign']!.toString()).toContain('new@example.com');
    // The superseded image is gone.
    expect((await fetch(first.location)).status).toBe(404);

    const events = await call('GET', `/events?infra_env_id=${id}`);
    const generated = events.body.filter((event: { name?: string; message: string }) => /^Generated image \(/.test(event.message));
    expect(generated).toHaveLength(2);
    expect(generated[0].message).toMatch(/image type is full-iso.*SYNTHETIC base ISO/);
  });

  it('composes the minimal ISO: rootfs URL in every kargs area, static network ramdisk in its area, same as DownloadMinimalInitrd', async () => {
    const { id } = await newInfraEnv({
      image_type: 'minimal-iso',
      static_network_config: STATIC_NETWORK,
      kernel_arguments: [{ operation: 'append', value: 'rd.net.timeout.carrier=30' }],
    });
    const url = (await call('GET', `/infra-envs/${id}/downloads/image-url`)).body.url;
    expect(url).toContain('type=minimal-iso');
    const { bytes } = await download(url);
    const iso = saved(bytes, 'minimal.iso');
    const rootfsUrl = `${env.runtime.url}/api/assisted-images/boot-artifacts/rootfs?arch=x86_64&version=${version}`;
    const layout = bases['minimal-iso']!.imported.info.layout;
    for (const area of layout.kargs!.areas) {
      const text = bytes.subarray(area.offset, area.offset + area.length).toString();
      expect(text).toBe(
        `ignition.firstboot ignition.platform.id=metal "coreos.live.rootfs_url=${rootfsUrl}" rd.net.timeout.carrier=30\n`.padEnd(area.length, '#'),
      );
    }
    expect(isoFile(iso, '/EFI/REDHAT/GRUB.CFG;1').toString()).toContain(
      `linux /images/pxeboot/vmlinuz ignition.firstboot ignition.platform.id=metal "coreos.live.rootfs_url=${rootfsUrl}"`,
    );

    const ramdisk = unpackArea(isoFile(iso, '/IMAGES/ASSISTED.IMG;1'));
    expect(Object.keys(ramdisk).sort()).toEqual([
      'etc/assisted/network/host0/eth0.nmconnection',
      'etc/assisted/network/host0/mac_interface.ini',
      'usr/lib/dracut/hooks/initqueue/settled/90-assisted-pre-static-network-config.sh',
      'usr/local/bin/pre-network-manager-config.sh',
    ]);
    // Minimal ISOs carry static networking in the ramdisk, not in the ignition.
    const embedded = unpackArea(isoFile(iso, '/IMAGES/IGNITION.IMG;1'))['config.ign']!.toString();
    expect(embedded).not.toContain('/etc/assisted/network');
    expect(ignitionValidate(embedded).status).toBe(0);

    const base = readFileSync(bases['minimal-iso']!.file);
    const changedAreas = [layout.ignition, layout.customRamdisk!, ...layout.kargs!.areas];
    for (const [first, last] of differences(base, bytes)) {
      expect(
        changedAreas.some((a) => first >= a.offset && last < a.offset + a.length),
        `bytes ${first}–${last} changed outside the embed areas`,
      ).toBe(true);
    }

    const initrd = await call('GET', `/infra-envs/${id}/downloads/minimal-initrd`);
    expect(initrd.status).toBe(200);
    expect(unpackArea(initrd.bytes)).toEqual(ramdisk);
  });

  it("answers HEAD with the image's size and minimal-initrd with 204 when there is nothing to carry", async () => {
    const { id, url } = await newInfraEnv();
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(bases['full-iso']!.imported.info.size);
    expect(head.headers.get('content-type')).toBe('application/x-iso9660-image');
    expect((await call('GET', `/infra-envs/${id}/downloads/minimal-initrd`)).status).toBe(204);
  });

  it("refuses expired and forged tokens (401) and another infra-env's token (404)", async () => {
    const { id, url } = await newInfraEnv();
    const other = await newInfraEnv();
    const infraEnv = (await container().store.infraEnvs.get({ orgId: env.runtime.orgId, infraEnvId: id }))!;
    const withToken = (token: string) => url.replace(/image_token=[^&]+/, `image_token=${token}`);
    const expired = await call('GET', withToken(await signImageToken(infraEnv, new Date(Date.now() - 60_000))), undefined, {});
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
    const forged = await call(
      'GET',
      withToken(await signImageToken({ ...infraEnv, imageTokenKey: Buffer.alloc(32, 1).toString('base64url') }, new Date(Date.now() + 60_000))),
      undefined,
      {},
    );
    expect(forged.status).toBe(401);
    expect((await call('GET', url.replace(id, other.id), undefined, {})).status).toBe(404);
    expect((await call('GET', url.replace(/image_token=[^&]+&/, ''), undefined, {})).status).toBe(401);
    expect((await call('GET', url.replace(/type=full-iso/, 'type=dvd'), undefined, {})).status).toBe(400);
    // A regenerated signing key voids the URLs issued before.
    expect((await call('POST', `/infra-envs/${id}/regenerate-signing-key`)).status).toBe(204);
    expect((await call('GET', url, undefined, {})).status).toBe(401);
  });

  it('answers 409 naming the missing base ISO and how to import it', async () => {
    const { url } = await newInfraEnv();
    const missing = await call('GET', url.replace(/arch=x86_64/, 'arch=s390x'), undefined, {});
    expect(missing.status).toBe(409);
    expect(missing.body.reason).toBe(
      `no base ISO imported for version ${version} arch s390x (full-iso): run npm run import-iso -- --version ${version} --arch s390x --type full-iso --file <live ISO> (or --synthetic for a SYNTHETIC, non-booting stand-in)`,
    );
    expect((await call('GET', `${env.runtime.url}/api/assisted-images/boot-artifacts/kernel?arch=s390x&version=${version}`, undefined, {})).status).toBe(409);
  });

  it('serves the boot artifacts and the iPXE initrd (base initrd, then our ignition archive)', async () => {
    const base = bases['full-iso']!.file;
    const rootfs = await download(`${env.runtime.url}/api/assisted-images/boot-artifacts/rootfs?arch=x86_64&version=${version}`);
    expect(rootfs.bytes.equals(isoFile(base, '/IMAGES/PXEBOOT/ROOTFS.IMG;1'))).toBe(true);
    const { id } = await newInfraEnv();
    const script = await call('GET', `/infra-envs/${id}/downloads/files?file_name=ipxe-script`);
    const initrdUrl = /^initrd --name initrd (\S+)$/m.exec(script.text)![1]!;
    const initrd = (await download(initrdUrl)).bytes;
    const baseInitrd = isoFile(base, '/IMAGES/PXEBOOT/INITRD.IMG;1');
    expect(initrd.subarray(0, baseInitrd.length).equals(baseInitrd)).toBe(true);
    expect(Object.keys(unpackArea(initrd.subarray(baseInitrd.length)))).toEqual(['config.ign']);
  });

  it('reads and writes the same few MiB for a 24 MiB and a 256 MiB (sparse) base', async () => {
    const target = localImportTarget(env.runtime.endpoints.s3);
    const large = await buildSyntheticBaseIso({
      version: '4.99',
      arch: 'x86_64',
      type: 'full-iso',
      outFile: path.join(work, 'large.iso'),
      sizeBytes: 256 * MiB,
    });
    try {
      await importBaseIsoFile(target, { file: large, version: '4.99', arch: 'x86_64', type: 'full-iso', synthetic: true, source: 'test' });
    } finally {
      target.close();
    }
    const { id } = await newInfraEnv();
    const infraEnv = (await container().store.infraEnvs.get({ orgId: env.runtime.orgId, infraEnvId: id }))!;
    const small = newMeter();
    const big = newMeter();
    await ensureDiscoveryImage(
      container(),
      { ...infraEnv, attributes: { ...infraEnv.attributes, ssh_authorized_key: sshPublicKey('meter@example.com') } },
      { type: 'full-iso', version, arch: 'x86_64' },
      small,
    );
    const composed = await ensureDiscoveryImage(container(), infraEnv, { type: 'full-iso', version: '4.99', arch: 'x86_64' }, big);
    for (const meter of [small, big]) expect(meter.read + meter.written).toBeLessThanOrEqual(16 * MiB);
    expect(Math.abs(big.read + big.written - (small.read + small.written))).toBeLessThan(MiB);
    expect(big.copied).toBeGreaterThan(240 * MiB);
    expect(composed.size).toBe(readFileSync(large).length);
  }, 120_000);
});

describe('a SYNTHETIC base ISO on first use (the embedded runtime, no image imported)', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const log: string[] = [];

  beforeAll(async () => {
    env = await testRuntime({ catalogue: catalogueWithImages(), syntheticBaseImages: true, log: (line) => log.push(line) });
  }, 120_000);
  afterAll(async () => env?.close());

  it('builds it once for concurrent first downloads, and names it SYNTHETIC in the file name, the events and the log', async () => {
    const user = { Authorization: `Bearer ${env.adminToken}` };
    const api = (route: string, init: RequestInit = {}) =>
      fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, { ...init, headers: { ...user, 'Content-Type': 'application/json' } });
    const infraEnvs = await Promise.all(
      [1, 2].map(
        async (i) =>
          (
            (await (await api('/infra-envs', { method: 'POST', body: JSON.stringify({ name: `first-use-${i}`, pull_secret: PULL_SECRET }) })).json()) as {
              id: string;
            }
          ).id,
      ),
    );
    const urls = await Promise.all(infraEnvs.map(async (id) => ((await (await api(`/infra-envs/${id}/downloads/image-url`)).json()) as { url: string }).url));
    const answers = await Promise.all(urls.map((url) => fetch(url, { redirect: 'manual' })));
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, await answer.clone().text()).toBe(302);
      expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="first-use-${i + 1}-full-iso-SYNTHETIC.iso"`);
      expect(answer.headers.get('x-assisted-base-image')).toMatch(/^SYNTHETIC/);
      const iso = Buffer.from(await (await fetch(answer.headers.get('location')!)).arrayBuffer());
      expect(iso.subarray(0x8001, 0x8006).toString('latin1')).toBe('CD001');
    }
    expect(log.filter((line) => /SYNTHETIC base ISO for OpenShift .* built and imported on first use/.test(line))).toHaveLength(1);
    const events = (await (await api(`/events?infra_env_id=${infraEnvs[0]}`)).json()) as { message: string }[];
    expect(events.map((event) => event.message)).toContainEqual(expect.stringMatching(/SYNTHETIC base ISO \(not RHCOS, does not boot\)/));
  }, 120_000);
});
