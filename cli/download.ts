/**
 * Downloads a (large) file over HTTP into `FILE`: the bytes go to `FILE.part` first and are renamed
 * only once complete and checked, so an interrupted run is resumed with a Range request next time.
 * The checksum comes from what the server states about the object: an `x-amz-checksum-sha256`, or
 * an S3 ETag that is a plain MD5 (single-part upload, not KMS-encrypted). Anything else is
 * reported as not verified rather than guessed at.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError, EXIT } from './exit-codes.js';

export interface DownloadResult {
  file: string;
  bytes: number;
  resumedFrom: number;
  checksum: { algorithm: 'sha256' | 'md5'; expected: string } | undefined;
  /** The file name the server gives the object (Content-Disposition), when it gives one. */
  serverFileName?: string;
}

/** The filename of a Content-Disposition header (the plain form the service and S3 send). */
export function dispositionFileName(headers: Headers): string | undefined {
  return /filename="([^"]+)"/.exec(headers.get('content-disposition') ?? '')?.[1];
}

export type Progress = (received: number, total: number | undefined) => void;

interface Expected {
  algorithm: 'sha256' | 'md5';
  expected: string;
}

/** What the answer's headers say the whole object's digest is; undefined when they say nothing usable. */
export function checksumOf(headers: Headers): Expected | undefined {
  const sha256 = headers.get('x-amz-checksum-sha256');
  // A composite (multipart) checksum ends in -<parts> and is not the digest of the object.
  if (sha256 && !sha256.includes('-') && (headers.get('x-amz-checksum-type') ?? 'FULL_OBJECT') === 'FULL_OBJECT') {
    return { algorithm: 'sha256', expected: Buffer.from(sha256, 'base64').toString('hex') };
  }
  const etag = headers.get('etag')?.replace(/^W\//, '').replace(/"/g, '');
  const encryption = headers.get('x-amz-server-side-encryption');
  if (etag && /^[0-9a-f]{32}$/i.test(etag) && (!encryption || encryption === 'AES256')) return { algorithm: 'md5', expected: etag.toLowerCase() };
  return undefined;
}

async function digestOf(file: string, algorithm: 'sha256' | 'md5'): Promise<string> {
  const hash = createHash(algorithm);
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** GET `url` into `file`, resuming `file.part` if a previous run left one. Bounded by `timeoutMs` of silence. */
export async function download(url: string, file: string, options: { progress?: Progress; idleTimeoutMs?: number } = {}): Promise<DownloadResult> {
  const part = `${file}.part`;
  const validatorFile = `${file}.part.etag`;
  const have = existsSync(part) ? statSync(part).size : 0;
  const validator = have > 0 && existsSync(validatorFile) ? readFileSync(validatorFile, 'utf8').trim() : '';
  const headers: Record<string, string> = have > 0 ? { Range: `bytes=${have}-`, ...(validator ? { 'If-Range': validator } : {}) } : {};
  const idle = new AbortController();
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  let timer = setTimeout(() => idle.abort(), idleTimeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { headers, redirect: 'follow', signal: idle.signal });
  } catch (error) {
    clearTimeout(timer);
    throw new CliError(`downloading ${file}: ${(error as Error).message}`, EXIT.transient);
  }
  if (response.status === 416 && have > 0) {
    // The part already holds the whole object (an earlier run died before renaming it).
    clearTimeout(timer);
    await response.body?.cancel();
    return finish(part, file, validatorFile, have, have, checksumOf(response.headers), dispositionFileName(response.headers));
  }
  if (!response.ok || !response.body) {
    clearTimeout(timer);
    const text = (await response.text().catch(() => '')).slice(0, 300);
    throw new CliError(
      `downloading ${file}: ${response.status} ${response.statusText} ${text}`.trim(),
      response.status >= 400 && response.status < 500 ? EXIT.apiRefused : EXIT.transient,
    );
  }
  const resumed = response.status === 206;
  const start = resumed ? have : 0;
  const length = Number(response.headers.get('content-length') ?? NaN);
  const total = Number.isFinite(length) ? start + length : undefined;
  const etag = response.headers.get('etag');
  if (etag) writeFileSync(validatorFile, etag);
  let received = start;
  options.progress?.(received, total);
  const counted = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  counted.on('data', (chunk: Buffer) => {
    received += chunk.length;
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleTimeoutMs);
    options.progress?.(received, total);
  });
  try {
    await pipeline(counted, createWriteStream(part, { flags: resumed ? 'a' : 'w' }));
  } catch (error) {
    throw new CliError(
      `downloading ${file}: interrupted after ${received} bytes (${(error as Error).message}); run the same command again to resume`,
      EXIT.transient,
    );
  } finally {
    clearTimeout(timer);
  }
  if (total !== undefined && received !== total)
    throw new CliError(`downloading ${file}: got ${received} of ${total} bytes; run the same command again to resume`, EXIT.transient);
  return finish(part, file, validatorFile, received, start, checksumOf(response.headers), dispositionFileName(response.headers));
}

async function finish(
  part: string,
  file: string,
  validatorFile: string,
  bytes: number,
  resumedFrom: number,
  checksum: Expected | undefined,
  serverFileName: string | undefined,
): Promise<DownloadResult> {
  if (checksum) {
    const actual = await digestOf(part, checksum.algorithm);
    if (actual !== checksum.expected) {
      rmSync(part, { force: true });
      rmSync(validatorFile, { force: true });
      throw new CliError(
        `downloading ${file}: ${checksum.algorithm} is ${actual} but the server states ${checksum.expected}; the partial file was removed`,
        EXIT.checksumMismatch,
      );
    }
  }
  renameSync(part, file);
  rmSync(validatorFile, { force: true });
  return { file, bytes, resumedFrom, checksum, ...(serverFileName ? { serverFileName } : {}) };
}

/** A progress bar on stderr when it is a terminal; otherwise a line every 10 %. */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): { progress: Progress; done(): void } {
  const started = Date.now();
  let lastDraw = 0;
  let lastDecile = -1;
  const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
  const line = (received: number, total: number | undefined) => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const rate = `${mib(received / seconds)} MiB/s`;
    if (!total) return `${label} ${mib(received)} MiB ${rate}`;
    const fraction = Math.min(received / total, 1);
    const width = 30;
    const filled = Math.round(fraction * width);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${mib(received)}/${mib(total)} MiB ${rate}`;
  };
  let last: [number, number | undefined] = [0, undefined];
  return {
    progress(received, total) {
      last = [received, total];
      if (stream.isTTY) {
        if (Date.now() - lastDraw < 100) return;
        lastDraw = Date.now();
        stream.write(`\r${line(received, total)}\x1b[K`);
      } else if (total) {
        const decile = Math.floor((received / total) * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          stream.write(`${line(received, total)}\n`);
        }
      }
    },
    done() {
      if (stream.isTTY) stream.write(`\r${line(...last)}\x1b[K\n`);
    },
  };
}
