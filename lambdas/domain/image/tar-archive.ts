/**
 * A minimal POSIX ustar writer: regular files only, as upstream's static-network-config download
 * is a plain tar of the generated files. Pure; no dependency needed for so little.
 */

const BLOCK = 512;

function octal(value: number, width: number): string {
  // Width includes the terminating NUL.
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** ustar keeps up to 100 bytes of name plus a 155-byte prefix split at a slash. */
function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== '') return { name, prefix };
  }
  throw new Error(`tar: path is too long for a ustar header: ${path}`);
}

function header(path: string, size: number, mode: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const { name, prefix } = splitName(path);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(mode & 0o7777, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii'); // uid
  block.write(octal(0, 8), 116, 'ascii'); // gid
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(mtime, 12), 136, 'ascii');
  block.write('        ', 148, 'ascii'); // checksum is computed with this field as spaces
  block.write('0', 156, 'ascii'); // regular file
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let checksum = 0;
  for (const byte of block) checksum += byte;
  block.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

export function tarArchive(files: { path: string; contents: string | Buffer; mode: number }[], mtime = 0): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    const data = typeof file.contents === 'string' ? Buffer.from(file.contents) : file.contents;
    parts.push(header(file.path, data.length, file.mode, mtime), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  // Two zero blocks end the archive.
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
