/**
 * What customizing a discovery ISO costs as the base grows: bytes our code reads and uploads per
 * image (goal: the same few MiB, at most 16 MiB, for a 100 MiB and a 1 GiB base) against the
 * 2× base size a download-patch-upload would move, and the time from GET .../image-url to the
 * image URL's redirect, against the floor of a plain server-side copy of the base. Bases are
 * SYNTHETIC (xorriso, sparse rootfs). Locally, s3rver performs UploadPartCopy by copying bytes on
 * this disk, so the time grows with the base here where in S3 it stays inside the service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSyntheticBaseIso, importBaseIsoFile, localImportTarget } from '../bin/import-base-iso.js';
import { startRuntime } from '../bin/local/runtime.js';
import { loadCatalogue } from '../lib/catalogue.js';
import { baseIsoObjectKey } from '../lambdas/domain/core/object-keys.js';
import { container } from '../lambdas/platform/container.js';
import { ensureDiscoveryImage, imageReleaseOf, newMeter } from '../lambdas/usecases/discovery-image.js';
import { registerInfraEnv } from '../lambdas/usecases/infra-envs.js';
import { BENCH_PULL_SECRET } from './support/fixtures.js';

const MiB = 1024 * 1024;

export interface DiscoveryImageResult {
  baseMiB: number;
  ourMiB: number;
  naiveMiB: number;
  timeToUrlMs: number;
  plainCopyMs: number;
}

export async function discoveryImage(options: { sizesMiB?: number[] } = {}): Promise<DiscoveryImageResult[]> {
  const sizes = options.sizesMiB ?? [100, 1024];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-bench-'));
  const catalogue = loadCatalogue();
  if (!catalogue.functions.some((fn) => fn.name === 'Images')) {
    catalogue.functions.push({ name: 'Images', entry: 'lambdas/handlers/images/index.ts', handler: 'handler', kind: 'api' });
  }
  const runtime = await startRuntime({ port: 0, dnsPort: 0, dataDir, catalogue });
  const results: DiscoveryImageResult[] = [];
  try {
    const ports = container();
    const principal = { kind: 'user' as const, orgId: runtime.orgId, tokenId: 'bench', role: 'admin' as const };
    const adminToken = (await import('node:fs')).readFileSync(runtime.adminTokenFile, 'utf8').trim();
    for (const sizeMiB of sizes) {
      const view = await registerInfraEnv(ports, principal, { name: `bench-${sizeMiB}`, pull_secret: BENCH_PULL_SECRET });
      const infraEnv = (await ports.store.infraEnvs.get({ orgId: runtime.orgId, infraEnvId: view.id as string }))!;
      const { version, arch } = imageReleaseOf(infraEnv);
      const file = await buildSyntheticBaseIso({
        version,
        arch,
        type: 'full-iso',
        outFile: path.join(dataDir, `base-${sizeMiB}.iso`),
        sizeBytes: sizeMiB * MiB,
      });
      const target = localImportTarget(runtime.endpoints.s3);
      let baseBytes: number;
      try {
        baseBytes = (await importBaseIsoFile(target, { file, version, arch, type: 'full-iso', synthetic: true, source: 'bench' })).info.size;
      } finally {
        target.close();
      }
      rmSync(file, { force: true });

      // Bytes through our code for one image (a variant of the infra-env, so nothing is reused).
      const meter = newMeter();
      await ensureDiscoveryImage(
        ports,
        { ...infraEnv, attributes: { ...infraEnv.attributes, additional_ntp_sources: 'ntp.bench.example.com' } },
        { type: 'full-iso', version, arch },
        meter,
      );

      // Time from asking for the URL (which composes) to the image service's redirect.
      const started = performance.now();
      const urlReply = await fetch(`${runtime.url}/api/assisted-install/v2/infra-envs/${infraEnv.infraEnvId}/downloads/image-url`, {
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      const { url } = (await urlReply.json()) as { url: string };
      const redirect = await fetch(url, { redirect: 'manual' });
      if (redirect.status !== 302) throw new Error(`image URL answered ${redirect.status}`);
      const timeToUrlMs = performance.now() - started;

      // The floor on this machine: the same server-side copy with nothing rewritten.
      const copyStarted = performance.now();
      const source = baseIsoObjectKey(version, arch, 'full-iso');
      await ports.blobs.compose('images', `bench/plain-copy-${sizeMiB}.iso`, [{ kind: 'copy', sourceKey: source, start: 0, end: baseBytes - 1 }]);
      const plainCopyMs = performance.now() - copyStarted;
      await ports.blobs.remove('images', `bench/plain-copy-${sizeMiB}.iso`);

      const result = {
        baseMiB: baseBytes / MiB,
        ourMiB: (meter.read + meter.written) / MiB,
        naiveMiB: (2 * baseBytes) / MiB,
        timeToUrlMs,
        plainCopyMs,
      };
      results.push(result);
      console.log(
        `base ${result.baseMiB.toFixed(1)} MiB: read+written ${result.ourMiB.toFixed(2)} MiB per image (naive ${result.naiveMiB.toFixed(0)} MiB, ratio ${(result.ourMiB / result.naiveMiB).toFixed(4)}); ` +
          `copied inside S3 ${(meter.copied / MiB).toFixed(1)} MiB; time to a downloadable URL ${result.timeToUrlMs.toFixed(0)} ms ` +
          `(plain server-side copy ${result.plainCopyMs.toFixed(0)} ms, ratio ${(result.timeToUrlMs / result.plainCopyMs).toFixed(2)})`,
      );
    }
    const [first, last] = [results[0], results.at(-1)];
    if (first && last && first !== last)
      console.log(`bytes per image ${last.baseMiB.toFixed(0)} MiB base ÷ ${first.baseMiB.toFixed(0)} MiB base: ${(last.ourMiB / first.ourMiB).toFixed(3)}`);
    return results;
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${path.resolve(process.argv[1])}`).href) {
  await discoveryImage();
  process.exit(0);
}
