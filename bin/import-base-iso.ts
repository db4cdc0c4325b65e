/**
 * `npm run import-iso`: puts a base live ISO for an OpenShift minor version, CPU architecture and
 * image type into the images bucket, with its description (embed-area layout, provenance) and,
 * for a full ISO, its kernel, initrd and rootfs for iPXE and minimal ISOs. The ISO comes from a
 * file, a URL, or is a SYNTHETIC stand-in built with xorriso (tests, demos: it never boots).
 * Goes to the bucket named by IMAGES_BUCKET (AWS, default credentials), else to the local
 * runtime's S3 (the running `npm start`'s, or its data directory's when it is stopped).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  closeSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createS3BlobStore, s3ClientConfig } from '../lambdas/adapters/s3/blobs.js';
import { IsoReader, type ByteRangeReader } from '../lambdas/domain/image/iso-image.js';
import { syntheticIsoTree, type BaseImageType } from '../lambdas/domain/image/iso-synthetic.js';
import { baseIsoObjectKey, bootArtifactObjectKey } from '../lambdas/domain/core/object-keys.js';
import type { BlobStore } from '../lambdas/ports/blobs.js';
import { systemClock, type Clock } from '../lambdas/ports/clock.js';
import { isImageType, recordBaseImage, type BaseImageInfo, type BootArtifact } from '../lambdas/usecases/discovery-image.js';
import { startS3Local } from './local/s3-local.js';

/** The live ISO's PXE files, as CoreOS lays them out. */
const BOOT_ARTIFACT_PATHS: Record<BootArtifact, string> = {
  kernel: 'images/pxeboot/vmlinuz',
  initrd: 'images/pxeboot/initrd.img',
  rootfs: 'images/pxeboot/rootfs.img',
};
const XORRISO_TIMEOUT_MS = 10 * 60_000;

/** A ByteRangeReader over a local file. */
export function fileRangeReader(file: string): { read: ByteRangeReader; close(): void } {
  const fd = openSync(file, 'r');
  return {
    read: async (start, length) => {
      const buffer = Buffer.alloc(length);
      const count = readSync(fd, buffer, 0, length, start);
      return buffer.subarray(0, count);
    },
    close: () => closeSync(fd),
  };
}

function run(command: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: timeoutMs });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', (error) =>
      reject(new Error(`${command}: ${error.message}${(error as NodeJS.ErrnoException).code === 'ENOENT' ? ' (Debian: apt-get install xorriso)' : ''}`)),
    );
    child.on('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`))));
  });
}

/**
 * Builds a SYNTHETIC base ISO with xorriso into `outFile`. `sizeBytes` (full ISOs) pads it with a
 * sparse placeholder rootfs to about that size.
 */
export async function buildSyntheticBaseIso(options: {
  version: string;
  arch: string;
  type: BaseImageType;
  outFile: string;
  sizeBytes?: number;
}): Promise<string> {
  const tree = mkdtempSync(path.join(tmpdir(), 'synthetic-iso-'));
  try {
    const overhead = 2 * 1024 * 1024;
    const { volumeId, files } = syntheticIsoTree({ ...options, rootfsBytes: Math.max(0, (options.sizeBytes ?? 0) - overhead) });
    for (const file of files) {
      const target = path.join(tree, file.path);
      mkdirSync(path.dirname(target), { recursive: true });
      if (file.contents instanceof Uint8Array) {
        writeFileSync(target, file.contents);
      } else {
        writeFileSync(target, '');
        truncateSync(target, file.contents.zeros);
      }
    }
    await run('xorriso', ['-as', 'mkisofs', '-R', '-J', '-V', volumeId, '-o', options.outFile, tree], XORRISO_TIMEOUT_MS);
    return options.outFile;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export interface ImportTarget {
  blobs: BlobStore;
  /** Large files are streamed straight to S3, not held in memory as BlobStore.put would. */
  client: S3Client;
  bucket: string;
}

async function uploadFileRange(target: ImportTarget, key: string, file: string, start: number, length: number, contentType: string): Promise<void> {
  await target.client.send(
    new PutObjectCommand({
      Bucket: target.bucket,
      Key: key,
      Body: length === 0 ? Buffer.alloc(0) : createReadStream(file, { start, end: start + length - 1 }),
      ContentLength: length,
      ContentType: contentType,
    }),
  );
}

export interface ImportResult {
  info: BaseImageInfo;
  bootArtifacts: BootArtifact[];
}

/** Uploads an ISO file as the base image for (version, arch, type) and records its description. */
export async function importBaseIsoFile(
  target: ImportTarget,
  options: { file: string; version: string; arch: string; type: BaseImageType; synthetic: boolean; source: string; clock?: Clock },
): Promise<ImportResult> {
  const size = statSync(options.file).size;
  const reader = fileRangeReader(options.file);
  try {
    // Refuse what is not a CoreOS live ISO before uploading a byte of it.
    const iso = await IsoReader.open(reader.read);
    const sha256 = await sha256Of(options.file);
    await uploadFileRange(target, baseIsoObjectKey(options.version, options.arch, options.type), options.file, 0, size, 'application/x-iso9660-image');
    const bootArtifacts: BootArtifact[] = [];
    if (options.type === 'full-iso') {
      for (const [artifact, isoPath] of Object.entries(BOOT_ARTIFACT_PATHS) as [BootArtifact, string][]) {
        const found = await iso.find(isoPath);
        if (!found) continue;
        await uploadFileRange(
          target,
          bootArtifactObjectKey(options.version, options.arch, artifact),
          options.file,
          found.offset,
          found.length,
          'application/octet-stream',
        );
        bootArtifacts.push(artifact);
      }
    }
    const info = await recordBaseImage(
      { blobs: target.blobs, clock: options.clock ?? systemClock },
      {
        version: options.version,
        arch: options.arch,
        type: options.type,
        size,
        sha256,
        synthetic: options.synthetic,
        source: options.source,
        read: reader.read,
      },
    );
    return { info, bootArtifacts };
  } finally {
    reader.close();
  }
}

/** An import target on the local runtime's S3 endpoint (bucket names as bin/local/runtime.ts creates them). */
export function localImportTarget(endpoint: string): ImportTarget & { close(): void } {
  const client = new S3Client(
    s3ClientConfig({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }),
  );
  const buckets = { files: 'assisted-files', images: 'assisted-images', logs: 'assisted-logs' };
  return { client, bucket: buckets.images, blobs: createS3BlobStore({ buckets, client }), close: () => client.destroy() };
}

const usage = `usage:
  npm run import-iso -- --version 4.18 [--arch x86_64] [--type full-iso|minimal-iso|disconnected-iso] --file PATH.iso
  npm run import-iso -- --version 4.18 [--arch x86_64] [--type full-iso|minimal-iso|disconnected-iso] --url https://…/live.iso
  npm run import-iso -- --version 4.18 [--arch x86_64] [--type full-iso|minimal-iso|disconnected-iso] --synthetic [--size-mib 64]
--synthetic builds a SYNTHETIC stand-in with xorriso: the CoreOS live ISO layout, but not RHCOS; it does not boot.
Destination: IMAGES_BUCKET (AWS), else the local runtime's data directory (ASSISTED_DATA_DIR, default ./.assisted).`;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function download(url: string, file: string): Promise<void> {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`GET ${url}: ${response.status}`);
  await pipeline(Readable.fromWeb(response.body as never), createWriteStream(file));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      version: { type: 'string' },
      arch: { type: 'string', default: 'x86_64' },
      type: { type: 'string', default: 'full-iso' },
      file: { type: 'string' },
      url: { type: 'string' },
      synthetic: { type: 'boolean', default: false },
      'size-mib': { type: 'string', default: '64' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const fail = (message: string): never => {
    console.error(message);
    process.exit(2);
  };
  if (values.help) {
    console.log(usage);
    return;
  }
  const version = values.version ?? fail(usage);
  if (!/^\d+\.\d+$/.test(version)) fail(`--version must be an OpenShift minor version such as 4.18\n${usage}`);
  if (!/^[a-z0-9_]{1,16}$/.test(values.arch)) fail(`--arch must be a CPU architecture such as x86_64\n${usage}`);
  if (!isImageType(values.type)) fail(`--type must be full-iso, minimal-iso or disconnected-iso (the OVE ISO, agent-ove.<arch>.iso)\n${usage}`);
  const type = values.type as BaseImageType;
  const sources = [values.file, values.url, values.synthetic ? 'synthetic' : undefined].filter(Boolean);
  if (sources.length !== 1) fail(`give exactly one of --file, --url, --synthetic\n${usage}`);

  const work = mkdtempSync(path.join(tmpdir(), 'import-iso-'));
  const closers: (() => Promise<void> | void)[] = [() => rmSync(work, { recursive: true, force: true })];
  try {
    let file = values.file;
    let source = values.file ? path.resolve(values.file) : (values.url ?? 'synthetic');
    if (values.url) {
      file = path.join(work, 'download.iso');
      await download(values.url, file);
    } else if (values.synthetic) {
      file = path.join(work, 'synthetic.iso');
      const sizeMib = Number(values['size-mib']);
      if (!Number.isFinite(sizeMib) || sizeMib < 0 || sizeMib > 8192) fail('--size-mib must be 0–8192');
      await buildSyntheticBaseIso({ version, arch: values.arch, type, outFile: file, sizeBytes: sizeMib * 1024 * 1024 });
      source = `synthetic (xorriso, ${sizeMib} MiB)`;
    }
    if (!existsSync(file!)) fail(`no such file: ${file}`);

    let target: ImportTarget;
    let where: string;
    if (process.env.IMAGES_BUCKET) {
      const client = new S3Client(s3ClientConfig());
      closers.push(() => client.destroy());
      target = {
        client,
        bucket: process.env.IMAGES_BUCKET,
        blobs: createS3BlobStore({ client, buckets: { files: '', logs: '', images: process.env.IMAGES_BUCKET } }),
      };
      where = `s3://${process.env.IMAGES_BUCKET}`;
    } else {
      const dataDir = path.resolve(process.env.ASSISTED_DATA_DIR ?? '.assisted');
      const runtimeFile = path.join(dataDir, 'runtime.json');
      let endpoint: string | undefined;
      if (existsSync(runtimeFile)) {
        const runtime = JSON.parse(readFileSync(runtimeFile, 'utf8')) as { pid?: number; endpoints?: { s3?: string } };
        if (runtime.pid && pidAlive(runtime.pid)) endpoint = runtime.endpoints?.s3;
      }
      if (!endpoint) {
        // The service is stopped: write into its data directory through a short-lived S3 stand-in.
        const s3 = await startS3Local({
          host: '127.0.0.1',
          port: 0,
          directory: path.join(dataDir, 's3'),
          buckets: ['assisted-files', 'assisted-images', 'assisted-logs'],
        });
        closers.push(() => s3.stop());
        endpoint = s3.endpoint;
      }
      const local = localImportTarget(endpoint);
      closers.push(() => local.close());
      target = local;
      where = `the local runtime's images bucket (${dataDir})`;
    }
    const { info, bootArtifacts } = await importBaseIsoFile(target, { file: file!, version, arch: values.arch, type, synthetic: values.synthetic, source });
    console.log(
      `imported ${info.synthetic ? 'a SYNTHETIC (not RHCOS, non-booting) ' : ''}${type} base ISO for ${version}/${values.arch} into ${where}: ` +
        `${info.size} bytes, volume ${info.layout.volumeId}, Ignition area ${info.layout.ignition.length} bytes` +
        `${info.layout.kargs ? `, ${info.layout.kargs.areas.length} kernel argument areas` : ', no kernel argument areas'}` +
        `${bootArtifacts.length ? `; boot artifacts: ${bootArtifacts.join(', ')}` : ''}`,
    );
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error: Error) => {
    console.error(`import-iso: ${error.message}`);
    process.exit(1);
  });
}
