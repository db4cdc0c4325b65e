/**
 * `lsblk -J -b -o <LSBLK_COLUMNS>` output. util-linux changed the JSON over the years (numbers and
 * booleans as strings before 2.33, MOUNTPOINTS arrays since 2.37), so every field is read leniently.
 */

export const LSBLK_COLUMNS = 'NAME,KNAME,PATH,TYPE,SIZE,ROTA,RM,RO,SERIAL,WWN,HCTL,VENDOR,MODEL,TRAN,MOUNTPOINT,FSTYPE,PARTLABEL,PKNAME';

export interface BlockDevice {
  readonly name: string;
  readonly path: string;
  /** disk, part, rom, lvm, mpath, raid1, loop, crypt... */
  readonly type: string;
  readonly sizeBytes?: number;
  readonly rotational?: boolean;
  readonly removable?: boolean;
  readonly readOnly?: boolean;
  readonly serial?: string;
  readonly wwn?: string;
  readonly hctl?: string;
  readonly vendor?: string;
  readonly model?: string;
  readonly transport?: string;
  readonly mountpoints: readonly string[];
  readonly fstype?: string;
  readonly partlabel?: string;
  readonly children: readonly BlockDevice[];
}

const text = (value: unknown): string | undefined => {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
};

const flag = (value: unknown): boolean | undefined => {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1') return true;
  if (value === 0 || value === '0') return false;
  return undefined;
};

const count = (value: unknown): number | undefined => {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isFinite(number) ? number : undefined;
};

function device(raw: Record<string, unknown>): BlockDevice | undefined {
  const name = text(raw.kname) ?? text(raw.name);
  if (!name) return undefined;
  const mountpoints = [...(Array.isArray(raw.mountpoints) ? raw.mountpoints : []), raw.mountpoint].flatMap((entry) =>
    typeof entry === 'string' && entry !== '' ? [entry] : [],
  );
  const children = Array.isArray(raw.children) ? raw.children : [];
  return {
    name,
    path: text(raw.path) ?? `/dev/${name}`,
    type: text(raw.type) ?? 'disk',
    sizeBytes: count(raw.size),
    rotational: flag(raw.rota),
    removable: flag(raw.rm),
    readOnly: flag(raw.ro),
    serial: text(raw.serial),
    wwn: text(raw.wwn),
    hctl: text(raw.hctl),
    vendor: text(raw.vendor),
    model: text(raw.model),
    transport: text(raw.tran),
    mountpoints: [...new Set(mountpoints)],
    fstype: text(raw.fstype),
    partlabel: text(raw.partlabel),
    children: children.flatMap((child) => {
      const parsed = child && typeof child === 'object' ? device(child as Record<string, unknown>) : undefined;
      return parsed ? [parsed] : [];
    }),
  };
}

/** Top-level block devices with their partitions (and holders) as children. Throws on text that is not lsblk JSON. */
export function parseLsblk(output: string): BlockDevice[] {
  const parsed = JSON.parse(output) as { blockdevices?: unknown };
  if (!parsed || !Array.isArray(parsed.blockdevices)) throw new Error('lsblk output has no "blockdevices" array');
  return parsed.blockdevices.flatMap((raw) => {
    const parsedDevice = raw && typeof raw === 'object' ? device(raw as Record<string, unknown>) : undefined;
    return parsedDevice ? [parsedDevice] : [];
  });
}
