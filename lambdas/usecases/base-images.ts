/**
 * The base images discovery images are made from, in the images bucket: the base ISOs per
 * OpenShift minor version, CPU architecture and type, each with its description (recorded at
 * import), and the kernel, initrd and rootfs extracted from a full ISO for iPXE. Where the
 * deployment offers them, a SYNTHETIC stand-in is made on first use.
 */
import type { Readable } from 'node:stream';
import { badRequest, conflict } from '../domain/core/errors.js';
import { readIsoLayout, type ByteRangeReader, type IsoLayout } from '../domain/image/iso-image.js';
import { baseIsoInfoObjectKey, bootArtifactObjectKey } from '../domain/core/object-keys.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import type { SyntheticBaseImages } from '../ports/synthetic-base-images.js';

/** The base ISOs: RHCOS's full and minimal live ISOs, and the OVE ISO of disconnected-iso infra-envs. */
export const IMAGE_TYPES = ['full-iso', 'minimal-iso', 'disconnected-iso'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
export const BOOT_ARTIFACTS = ['kernel', 'initrd', 'rootfs'] as const;
export type BootArtifact = (typeof BOOT_ARTIFACTS)[number];

/** What one base image is, written next to it at import. */
export interface BaseImageInfo {
  version: string;
  arch: string;
  type: ImageType;
  /** True for the synthetic stand-in built with xorriso: never RHCOS, never bootable. */
  synthetic: boolean;
  /** Where it was imported from (a path or URL, or "synthetic"). */
  source: string;
  size: number;
  sha256: string;
  importedAt: string;
  layout: IsoLayout;
}

/** Bytes that passed through us while making an image; `copied` stayed inside S3. */
export interface TransferMeter {
  read: number;
  written: number;
  copied: number;
}

export const newMeter = (): TransferMeter => ({ read: 0, written: 0, copied: 0 });

export function isImageType(value: string): value is ImageType {
  return (IMAGE_TYPES as readonly string[]).includes(value);
}

export function importHint(version: string, arch: string, type: ImageType): string {
  return (
    `no base ISO imported for version ${version} arch ${arch} (${type}): run npm run import-iso -- --version ${version} --arch ${arch} --type ${type} --file <live ISO>` +
    ` (or --synthetic for a SYNTHETIC, non-booting stand-in)`
  );
}

async function readJson<T>(blobs: BlobStore, key: string, meter?: TransferMeter): Promise<T | undefined> {
  const bytes = await blobs.get('images', key);
  if (!bytes) return undefined;
  if (meter) meter.read += bytes.length;
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as T;
}

/**
 * The base image, or, where the deployment offers them and none was imported, a SYNTHETIC one
 * made on first use (it never boots; the image's events and file name say so).
 */
export async function baseImageOrSynthetic(
  deps: { blobs: BlobStore; syntheticBaseImages?: SyntheticBaseImages },
  version: string,
  arch: string,
  type: ImageType,
  meter?: TransferMeter,
): Promise<BaseImageInfo | undefined> {
  const base = await loadBaseImage(deps.blobs, version, arch, type, meter);
  if (base || !deps.syntheticBaseImages) return base;
  await deps.syntheticBaseImages.provide({ version, arch, type });
  return loadBaseImage(deps.blobs, version, arch, type, meter);
}

export function loadBaseImage(blobs: BlobStore, version: string, arch: string, type: ImageType, meter?: TransferMeter): Promise<BaseImageInfo | undefined> {
  return readJson<BaseImageInfo>(blobs, baseIsoInfoObjectKey(version, arch, type), meter);
}

/**
 * Records a base ISO already uploaded to its key: finds its embed areas through ranged reads and
 * writes its description. Refuses (IsoFormatError) an image that is not a CoreOS live ISO.
 */
export async function recordBaseImage(
  deps: { blobs: BlobStore; clock: Clock },
  input: { version: string; arch: string; type: ImageType; size: number; sha256: string; synthetic: boolean; source: string; read: ByteRangeReader },
): Promise<BaseImageInfo> {
  const { layout } = await readIsoLayout(input.read);
  if (input.type === 'minimal-iso' && !layout.kargs) {
    throw badRequest('this ISO has no kernel argument embed areas (coreos/kargs.json): a minimal ISO needs them to be told where its rootfs is');
  }
  const info: BaseImageInfo = {
    version: input.version,
    arch: input.arch,
    type: input.type,
    synthetic: input.synthetic,
    source: input.source,
    size: input.size,
    sha256: input.sha256,
    importedAt: deps.clock.now().toISOString(),
    layout,
  };
  await deps.blobs.put('images', baseIsoInfoObjectKey(input.version, input.arch, input.type), JSON.stringify(info, null, 2), 'application/json');
  return info;
}

/** Reads a byte range of an object fully (ranges here are a few MiB at most). */
export async function readRange(blobs: BlobStore, key: string, start: number, length: number, meter?: TransferMeter): Promise<Buffer> {
  if (length <= 0) return Buffer.alloc(0);
  const stream: Readable | undefined = await blobs.stream('images', key, { start, end: start + length - 1 });
  if (!stream) throw conflict(`${key} disappeared from the images bucket; import it again`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    if (!(chunk instanceof Uint8Array)) throw new Error(`${key}: the images bucket streamed text, not bytes`);
    chunks.push(Buffer.from(chunk));
  }
  const bytes = Buffer.concat(chunks);
  if (meter) meter.read += bytes.length;
  return bytes;
}

/** A ByteRangeReader over an object of the images bucket. */
export function objectRangeReader(blobs: BlobStore, key: string, size: number, meter?: TransferMeter): ByteRangeReader {
  return (start, length) => readRange(blobs, key, start, Math.max(0, Math.min(length, size - start)), meter);
}

export function bootArtifactHint(version: string, arch: string): string {
  return `no boot artifacts imported for version ${version} arch ${arch}: importing the full live ISO (npm run import-iso -- --version ${version} --arch ${arch} --type full-iso --file <live ISO>) extracts its kernel, initrd and rootfs`;
}

/** Where a version's kernel, initrd or rootfs lives; 409 when it was never imported. */
export async function bootArtifact(
  deps: { blobs: BlobStore; syntheticBaseImages?: SyntheticBaseImages },
  artifact: BootArtifact,
  version: string,
  arch: string,
): Promise<{ key: string; size: number }> {
  const key = bootArtifactObjectKey(version, arch, artifact);
  let size = await deps.blobs.size('images', key);
  if (size === undefined && deps.syntheticBaseImages) {
    // Importing a full live ISO extracts its boot artifacts (a SYNTHETIC one's are placeholders);
    // provide does nothing when a full ISO is imported already.
    await deps.syntheticBaseImages.provide({ version, arch, type: 'full-iso' });
    size = await deps.blobs.size('images', key);
  }
  if (size === undefined) throw conflict(bootArtifactHint(version, arch));
  return { key, size };
}
