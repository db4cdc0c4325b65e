/**
 * SYNTHETIC base ISOs on first use, for the embedded runtime: a fresh data directory has no RHCOS
 * image, and this machine usually cannot download one. The first discovery image asked for a
 * release builds a small SYNTHETIC live ISO with xorriso and imports it as `npm run import-iso --
 * --synthetic` does, so the whole download path works. It never boots: the import records it as
 * synthetic, and the image's events, file name and the runtime's log say so.
 * ASSISTED_SYNTHETIC_BASE_IMAGES=off turns it off (a missing base ISO is then a 409, as in AWS).
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { BaseImageType } from '../../lambdas/domain/image/iso-synthetic.js';
import type { SyntheticBaseImages } from '../../lambdas/ports/synthetic-base-images.js';
import { loadBaseImage } from '../../lambdas/usecases/discovery-image.js';
import { buildSyntheticBaseIso, importBaseIsoFile, localImportTarget } from '../import-base-iso.js';

export function syntheticBaseImagesOffered(environment: NodeJS.ProcessEnv = process.env): boolean {
  return environment.ASSISTED_SYNTHETIC_BASE_IMAGES !== 'off';
}

export class LocalSyntheticBaseImages implements SyntheticBaseImages {
  /** One build per release and type at a time; a failed one is tried again on the next request. */
  private readonly imports = new Map<string, Promise<void>>();

  constructor(
    private readonly s3Endpoint: string,
    /** Where the ISO is built before it is imported (the runtime's data directory). */
    private readonly workDirectory: string,
    private readonly log: (message: string) => void,
  ) {}

  provide(request: { version: string; arch: string; type: BaseImageType }): Promise<void> {
    const key = `${request.version}/${request.arch}/${request.type}`;
    let running = this.imports.get(key);
    if (!running) {
      running = this.importSynthetic(request).finally(() => this.imports.delete(key));
      this.imports.set(key, running);
    }
    return running;
  }

  private async importSynthetic({ version, arch, type }: { version: string; arch: string; type: BaseImageType }): Promise<void> {
    const target = localImportTarget(this.s3Endpoint);
    mkdirSync(this.workDirectory, { recursive: true, mode: 0o700 });
    const file = path.join(this.workDirectory, `SYNTHETIC-live-${version}-${arch}-${type}.iso`);
    try {
      // Imported meanwhile (another request, or npm run import-iso): nothing to do.
      if (await loadBaseImage(target.blobs, version, arch, type)) return;
      const started = performance.now();
      await buildSyntheticBaseIso({ version, arch, type, outFile: file });
      const { info } = await importBaseIsoFile(target, {
        file,
        version,
        arch,
        type,
        synthetic: true,
        source: 'synthetic (built on first use by the embedded runtime)',
      });
      this.log(
        `SYNTHETIC base ISO for OpenShift ${version} ${arch} (${type}) built and imported on first use in ${Math.round(performance.now() - started)} ms (${info.size} bytes): ` +
          `discovery images made from it do not boot; npm run import-iso -- --version ${version} --arch ${arch} --type ${type} --file <${type === 'disconnected-iso' ? `agent-ove.${arch}.iso (the OVE ISO)` : 'RHCOS live ISO'}> imports a real one`,
      );
    } finally {
      target.close();
      rmSync(file, { force: true });
    }
  }
}
