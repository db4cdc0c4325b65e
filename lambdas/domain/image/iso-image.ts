/**
 * The CoreOS live ISO as coreos-installer sees it: an ISO9660 image with an Ignition embed area
 * (`coreos/igninfo.json` naming it, or the whole `images/ignition.img`) and kernel-argument embed
 * areas inside the boot loader configs (`coreos/kargs.json`). A discovery image is the base ISO
 * with those few KiB rewritten; this module finds them from a handful of ranged reads (the
 * directory tree sits in the first sectors) and plans an S3 composition that copies everything
 * else server-side. Pure: the caller supplies the byte-range reader.
 */
import { badRequest } from '../core/errors.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

export const SECTOR = 2048;
/** ISO9660 volume descriptors start after the 32 KiB system area. */
const FIRST_DESCRIPTOR_SECTOR = 16;
const MAX_DESCRIPTORS = 64;
const MAX_DIRECTORY_BYTES = 1024 * 1024;
const MAX_PATH_DEPTH = 16;
/** coreos-installer refuses larger karg areas; so do we, rather than trust a corrupt kargs.json. */
export const MAX_KARGS_AREA = 2048;
const MAX_INFO_FILE_BYTES = 64 * 1024;

export const IGNINFO_PATH = 'coreos/igninfo.json';
export const DEFAULT_IGNITION_AREA_PATH = 'images/ignition.img';
export const KARGS_INFO_PATH = 'coreos/kargs.json';
/** Upstream's minimal ISO template: a zero-filled file the boot loaders load as an extra initrd. */
export const CUSTOM_RAMDISK_PATH = 'images/assisted_installer_custom.img';

/** Reads `length` bytes at `start`; may return fewer only at the end of the object. */
export type ByteRangeReader = (start: number, length: number) => Promise<Uint8Array>;

export class IsoFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IsoFormatError';
  }
}

export interface IsoFile {
  /** Byte offset of the file's extent in the image. */
  offset: number;
  length: number;
}

export interface EmbedArea {
  offset: number;
  length: number;
}

export interface KargsArea extends EmbedArea {
  /** Fills the area after the arguments (coreos-installer's default '#'). */
  pad: string;
  /** Ends the arguments (default newline). */
  end: string;
}

export interface IsoLayout {
  volumeId: string;
  /** Volume size in bytes, from the primary volume descriptor. */
  volumeBytes: number;
  ignition: EmbedArea;
  /** Absent on ISOs without kargs.json: their kernel arguments cannot be changed. */
  kargs?: { defaultArgs: string; size: number; areas: KargsArea[] };
  /** Present on minimal ISOs built as upstream's template (an extra, zero-filled initrd). */
  customRamdisk?: EmbedArea;
}

const ascii = (bytes: Uint8Array, start: number, length: number) => Buffer.from(bytes.buffer, bytes.byteOffset + start, length).toString('latin1');
const u32 = (bytes: Uint8Array, at: number) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt32LE(at);
const u16 = (bytes: Uint8Array, at: number) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt16LE(at);

interface DirectoryEntry {
  /** The ISO9660 identifier without its `;1` version and trailing dot, upper case. */
  isoName: string;
  /** The Rock Ridge name, when the image has one (case preserved). */
  rockRidgeName?: string;
  directory: boolean;
  file: IsoFile;
}

/** Rock Ridge `NM` entries of one record's system use area, joined (no continuation areas). */
function rockRidgeName(systemUse: Uint8Array): string | undefined {
  let name = '';
  let found = false;
  for (let at = 0; at + 4 <= systemUse.length; ) {
    const length = systemUse[at + 2]!;
    if (length < 4 || at + length > systemUse.length) break;
    if (systemUse[at] === 0x4e && systemUse[at + 1] === 0x4d) {
      const flags = systemUse[at + 4]!;
      // Flags 2 and 4 mark "." and ".." records, which carry no name of their own.
      if ((flags & 0x06) === 0) {
        name += Buffer.from(systemUse.subarray(at + 5, at + length)).toString('utf8');
        found = true;
      }
    }
    at += length;
  }
  return found ? name : undefined;
}

function parseDirectory(bytes: Uint8Array): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes[at]!;
    if (length === 0) {
      // Records never cross a sector; the rest of this one is padding.
      at = (Math.floor(at / SECTOR) + 1) * SECTOR;
      continue;
    }
    if (length < 34 || at + length > bytes.length) throw new IsoFormatError(`corrupt directory record at byte ${at}`);
    const record = bytes.subarray(at, at + length);
    const idLength = record[32]!;
    const id = record.subarray(33, 33 + idLength);
    at += length;
    // The "." and ".." records are identified by a single 0 or 1 byte.
    if (idLength === 1 && (id[0] === 0 || id[0] === 1)) continue;
    const systemUseStart = 33 + idLength + (idLength % 2 === 0 ? 1 : 0);
    entries.push({
      isoName: ascii(id, 0, idLength).replace(/;\d+$/, '').replace(/\.$/, '').toUpperCase(),
      rockRidgeName: rockRidgeName(record.subarray(systemUseStart)),
      directory: (record[25]! & 0x02) !== 0,
      file: { offset: u32(record, 2) * SECTOR, length: u32(record, 10) },
    });
  }
  return entries;
}

/** The level-1 (8.3) name mkisofs gives a long name when Rock Ridge is not consulted. */
function levelOneName(component: string): string {
  const upper = component.toUpperCase().replace(/[^A-Z0-9_.]/g, '_');
  const dot = upper.lastIndexOf('.');
  if (dot <= 0) return upper.slice(0, 8);
  return `${upper.slice(0, dot).replace(/\./g, '_').slice(0, 8)}.${upper.slice(dot + 1).slice(0, 3)}`;
}

/** The entry for a path component: by Rock Ridge name, else as coreos-installer looks (upper case), else its 8.3 form. */
function entryNamed(entries: DirectoryEntry[], component: string): DirectoryEntry | undefined {
  return (
    entries.find((entry) => entry.rockRidgeName === component) ??
    entries.find((entry) => entry.isoName === component.toUpperCase()) ??
    entries.find((entry) => entry.isoName === levelOneName(component))
  );
}

/** Reads an ISO9660 tree lazily, directory by directory, counting what it reads. */
export class IsoReader {
  private readonly directories = new Map<number, Promise<DirectoryEntry[]>>();
  bytesRead = 0;

  private constructor(
    private readonly read: ByteRangeReader,
    readonly volumeId: string,
    readonly volumeBytes: number,
    private readonly root: IsoFile,
  ) {}

  static async open(read: ByteRangeReader): Promise<IsoReader> {
    let bytesRead = 0;
    for (let index = 0; index < MAX_DESCRIPTORS; index++) {
      const descriptor = await read((FIRST_DESCRIPTOR_SECTOR + index) * SECTOR, SECTOR);
      bytesRead += descriptor.length;
      if (descriptor.length < SECTOR || ascii(descriptor, 1, 5) !== 'CD001') {
        throw new IsoFormatError('not an ISO9660 image (no CD001 volume descriptor at sector 16)');
      }
      const type = descriptor[0];
      if (type === 255) break;
      if (type !== 1) continue;
      if (u16(descriptor, 128) !== SECTOR) throw new IsoFormatError(`unsupported logical block size ${u16(descriptor, 128)}`);
      const rootRecord = descriptor.subarray(156, 156 + 34);
      const reader = new IsoReader(read, ascii(descriptor, 40, 32).trim(), u32(descriptor, 80) * SECTOR, {
        offset: u32(rootRecord, 2) * SECTOR,
        length: u32(rootRecord, 10),
      });
      reader.bytesRead = bytesRead;
      return reader;
    }
    throw new IsoFormatError('no primary volume descriptor');
  }

  private async readExactly(file: IsoFile, limit: number, what: string): Promise<Uint8Array> {
    if (file.length > limit) throw new IsoFormatError(`${what} is ${file.length} bytes, more than the ${limit} expected`);
    const bytes = await this.read(file.offset, file.length);
    this.bytesRead += bytes.length;
    if (bytes.length !== file.length) throw new IsoFormatError(`${what} is cut short: the image ends inside it`);
    return bytes;
  }

  private listing(directory: IsoFile): Promise<DirectoryEntry[]> {
    let entries = this.directories.get(directory.offset);
    if (!entries) {
      entries = this.readExactly(directory, MAX_DIRECTORY_BYTES, `directory at byte ${directory.offset}`).then(parseDirectory);
      this.directories.set(directory.offset, entries);
    }
    return entries;
  }

  /** The file at a slash-separated path, or undefined when the image has none. */
  async find(path: string): Promise<IsoFile | undefined> {
    const components = path.split('/').filter(Boolean);
    if (components.length === 0 || components.length > MAX_PATH_DEPTH) return undefined;
    let current = this.root;
    for (const [index, component] of components.entries()) {
      const entry = entryNamed(await this.listing(current), component);
      if (!entry) return undefined;
      const last = index === components.length - 1;
      if (last) return entry.directory ? undefined : entry.file;
      if (!entry.directory) return undefined;
      current = entry.file;
    }
    return undefined;
  }

  async readFile(file: IsoFile, limit: number, what: string): Promise<Uint8Array> {
    return this.readExactly(file, limit, what);
  }
}

function parseJsonFile(bytes: Uint8Array, what: string): Record<string, unknown> {
  // kargs.json may be padded with spaces after the JSON text (coreos-installer rewrites it so).
  const text = Buffer.from(bytes)
    .toString('utf8')
    .replace(/[\0\s]+$/, '');
  try {
    const parsed: unknown = JSON.parse(text);
    if (isJsonObject(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw new IsoFormatError(`${what} is not a JSON object`);
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

async function ignitionArea(iso: IsoReader): Promise<EmbedArea> {
  const infoFile = await iso.find(IGNINFO_PATH);
  let areaPath = DEFAULT_IGNITION_AREA_PATH;
  let offsetInFile = 0;
  let length: number | undefined;
  if (infoFile) {
    const info = parseJsonFile(await iso.readFile(infoFile, MAX_INFO_FILE_BYTES, IGNINFO_PATH), IGNINFO_PATH);
    if (typeof info.file !== 'string') throw new IsoFormatError(`${IGNINFO_PATH} names no "file"`);
    areaPath = info.file;
    if (info.offset !== undefined) {
      if (!isCount(info.offset)) throw new IsoFormatError(`${IGNINFO_PATH} has an invalid offset`);
      offsetInFile = info.offset;
    }
    if (info.length !== undefined) {
      if (!isCount(info.length)) throw new IsoFormatError(`${IGNINFO_PATH} has an invalid length`);
      length = info.length;
    }
  }
  const file = await iso.find(areaPath);
  if (!file)
    throw new IsoFormatError(
      `no Ignition embed area: ${infoFile ? `${areaPath} (named by ${IGNINFO_PATH})` : `neither ${IGNINFO_PATH} nor ${DEFAULT_IGNITION_AREA_PATH}`} is in the image`,
    );
  const areaLength = length ?? file.length - offsetInFile;
  if (offsetInFile + areaLength > file.length || areaLength <= 0) throw new IsoFormatError(`the Ignition embed area lies outside ${areaPath}`);
  return { offset: file.offset + offsetInFile, length: areaLength };
}

function singleChar(value: unknown, fallback: string, what: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || value.length !== 1) throw new IsoFormatError(`${KARGS_INFO_PATH}: ${what} must be one character`);
  return value;
}

async function kargsAreas(iso: IsoReader): Promise<IsoLayout['kargs']> {
  const infoFile = await iso.find(KARGS_INFO_PATH);
  if (!infoFile) return undefined;
  const info = parseJsonFile(await iso.readFile(infoFile, MAX_INFO_FILE_BYTES, KARGS_INFO_PATH), KARGS_INFO_PATH);
  const size = info.size;
  if (!isCount(size) || size === 0 || size > MAX_KARGS_AREA) throw new IsoFormatError(`${KARGS_INFO_PATH}: size must be 1–${MAX_KARGS_AREA}`);
  if (typeof info.default !== 'string' || info.default.length > size)
    throw new IsoFormatError(`${KARGS_INFO_PATH}: default must be a string that fits the area`);
  if (!Array.isArray(info.files) || info.files.length === 0) throw new IsoFormatError(`${KARGS_INFO_PATH}: files must list at least one area`);
  const areas: KargsArea[] = [];
  for (const entry of info.files) {
    const location = isJsonObject(entry) ? entry : {};
    if (typeof location.path !== 'string' || !isCount(location.offset)) throw new IsoFormatError(`${KARGS_INFO_PATH}: each file needs a path and an offset`);
    const file = await iso.find(location.path);
    if (!file) throw new IsoFormatError(`${KARGS_INFO_PATH} names ${location.path}, which is not in the image`);
    if (location.offset + size > file.length) throw new IsoFormatError(`${KARGS_INFO_PATH}: the area in ${location.path} lies outside the file`);
    areas.push({ offset: file.offset + location.offset, length: size, pad: singleChar(location.pad, '#', 'pad'), end: singleChar(location.end, '\n', 'end') });
  }
  areas.sort((a, b) => a.offset - b.offset);
  return { defaultArgs: info.default.trim(), size, areas };
}

/** Finds the embed areas of a CoreOS live ISO; throws IsoFormatError when it is not one. */
export async function readIsoLayout(read: ByteRangeReader): Promise<{ layout: IsoLayout; bytesRead: number }> {
  const iso = await IsoReader.open(read);
  const ignition = await ignitionArea(iso);
  const kargs = await kargsAreas(iso);
  const ramdiskFile = await iso.find(CUSTOM_RAMDISK_PATH);
  const layout: IsoLayout = {
    volumeId: iso.volumeId,
    volumeBytes: iso.volumeBytes,
    ignition,
    ...(kargs ? { kargs } : {}),
    ...(ramdiskFile && ramdiskFile.length > 0 ? { customRamdisk: { offset: ramdiskFile.offset, length: ramdiskFile.length } } : {}),
  };
  return { layout, bytesRead: iso.bytesRead };
}

// ---- kernel arguments

export interface KernelArgument {
  operation?: string;
  value?: string;
}

const argKey = (arg: string) => arg.split('=', 1)[0]!;

/**
 * Applies the infra-env's `kernel_arguments` to a command line as coreos-installer's
 * --live-karg-* options do: append adds; delete removes every exact match (or every argument
 * with that key when the value has no '='); replace swaps every argument with the key of
 * `key=value` for it (appending it when there is none).
 */
export function applyKernelArguments(base: string[], changes: readonly KernelArgument[]): string[] {
  let args = [...base];
  for (const change of changes) {
    const value = change.value ?? '';
    if (value === '') continue;
    switch (change.operation) {
      case 'append':
        args.push(value);
        break;
      case 'delete':
        args = args.filter((arg) => (value.includes('=') ? arg !== value : argKey(arg) !== value));
        break;
      case 'replace': {
        const key = argKey(value);
        const first = args.findIndex((arg) => argKey(arg) === key);
        if (first === -1) {
          args.push(value);
          break;
        }
        // Every other argument with the key comes after the first, so the first keeps its index.
        args = args.filter((arg, index) => index === first || argKey(arg) !== key);
        args[first] = value;
        break;
      }
      default:
        throw badRequest(`kernel_arguments: unknown operation "${change.operation ?? ''}"; use append, replace or delete`);
    }
  }
  return args;
}

/** An argument whose value holds characters GRUB would interpret is double-quoted whole, which the kernel also accepts. */
export function quoteKernelArgument(arg: string): string {
  return /[\s{}|&$;<>'"\\]/.test(arg) ? `"${arg.replace(/"/g, '')}"` : arg;
}

/** The bytes of one kargs area holding `args`: the arguments, the end mark, then padding. */
export function kargsAreaBytes(args: string, area: KargsArea): Buffer {
  const text = args.trim();
  if (Buffer.byteLength(text) + 1 > area.length) {
    throw badRequest(
      `the kernel arguments (${Buffer.byteLength(text)} bytes) do not fit the ISO's ${area.length}-byte kernel argument area; remove some kernel_arguments`,
    );
  }
  const bytes = Buffer.alloc(area.length, area.pad);
  bytes.write(`${text}${area.end}`, 0, 'utf8');
  return bytes;
}

// ---- the composition plan

/** S3's multipart limits: every part but the last at least 5 MiB, none above 5 GiB. */
export const MIN_PART = 5 * 1024 * 1024;
export const MAX_PART = 5 * 1024 * 1024 * 1024;

export interface Patch {
  offset: number;
  bytes: Uint8Array;
}

export type PlannedPart =
  /** Copied server-side from the base, bytes [start, end] inclusive (S3's range form). */
  | { kind: 'copy'; start: number; end: number }
  /** Read from the base, patched, and uploaded: bytes [start, end). */
  | { kind: 'window'; start: number; end: number };

/** Splits a copy range into parts within S3's size limits. */
function copyParts(start: number, end: number, maxPart: number): PlannedPart[] {
  const length = end - start;
  if (length <= 0) return [];
  const count = Math.ceil(length / maxPart);
  const size = Math.ceil(length / count);
  const parts: PlannedPart[] = [];
  for (let from = start; from < end; from += size) parts.push({ kind: 'copy', start: from, end: Math.min(end, from + size) - 1 });
  return parts;
}

/**
 * The parts that rebuild a `size`-byte base with `patches` applied: the patched regions grouped
 * into the fewest windows S3's part limits allow (each window at least `minPart` unless it ends
 * the object, and every copied stretch between them too), everything else copied server-side.
 * The bytes read and uploaded are the windows', whatever the size of the base.
 */
export function planComposition(size: number, patches: readonly Patch[], limits = { minPart: MIN_PART, maxPart: MAX_PART }): PlannedPart[] {
  const { minPart, maxPart } = limits;
  const ranges = patches
    .filter((patch) => patch.bytes.length > 0)
    .map((patch) => ({ start: patch.offset, end: patch.offset + patch.bytes.length }))
    .sort((a, b) => a.start - b.start);
  for (const range of ranges) {
    if (range.start < 0 || range.end > size) throw new RangeError(`patch [${range.start}, ${range.end}) lies outside the ${size}-byte base`);
  }
  if (ranges.length === 0) return copyParts(0, size, maxPart);
  const windows: { start: number; end: number }[] = [];
  for (const range of ranges) {
    const last = windows.at(-1);
    let start = range.start;
    if (!last && start < minPart) start = 0;
    // A copied stretch shorter than a part cannot stand between two windows: merge them.
    if (last && start - last.end < minPart) last.end = Math.max(last.end, range.end);
    else windows.push({ start, end: range.end });
    const current = windows.at(-1)!;
    current.end = Math.min(size, Math.max(current.end, current.start + minPart));
  }
  // Growing a window may have brought it within a part's length of the next: merge again.
  const merged: { start: number; end: number }[] = [];
  for (const window of windows) {
    const last = merged.at(-1);
    if (last && window.start - last.end < minPart) last.end = Math.max(last.end, window.end);
    else merged.push({ ...window });
  }
  const lastWindow = merged.at(-1)!;
  // The stretch after the last window is the object's last part and may be small, but a window
  // that ends short of the end must not be (it is not last).
  if (lastWindow.end < size && lastWindow.end - lastWindow.start < minPart) lastWindow.end = Math.min(size, lastWindow.start + minPart);
  const parts: PlannedPart[] = [];
  let cursor = 0;
  for (const window of merged) {
    parts.push(...copyParts(cursor, window.start, maxPart));
    parts.push({ kind: 'window', start: window.start, end: window.end });
    cursor = window.end;
  }
  parts.push(...copyParts(cursor, size, maxPart));
  return parts;
}

/** Writes the patches that fall in a window read from the base at `windowStart`. */
export function applyPatches(windowStart: number, window: Uint8Array, patches: readonly Patch[]): Uint8Array {
  const out = Buffer.from(window);
  const windowEnd = windowStart + out.length;
  for (const patch of patches) {
    const start = Math.max(patch.offset, windowStart);
    const end = Math.min(patch.offset + patch.bytes.length, windowEnd);
    if (start >= end) continue;
    out.set(patch.bytes.subarray(start - patch.offset, end - patch.offset), start - windowStart);
  }
  return out;
}

/** Bytes a plan reads from the base and uploads (each window once each way). */
export function windowBytes(parts: readonly PlannedPart[]): number {
  return parts.reduce((total, part) => total + (part.kind === 'window' ? part.end - part.start : 0), 0);
}
