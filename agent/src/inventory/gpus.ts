/**
 * GPUs and accelerators from the PCI bus, filtered by class, class+vendor or class+vendor+device as
 * upstream's `--gpu-config-file` describes; names from pci.ids when the host has it.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { InventoryProbe } from './probe.js';

export interface Gpu {
  address: string;
  vendor_id: string;
  device_id: string;
  vendor?: string;
  name?: string;
}

export interface GpuFilter {
  /** PCI base class + subclass, 4 hex digits: "0300". */
  readonly classes: readonly string[];
  /** "<class> <vendor>": "0302 10de". */
  readonly vendors: readonly string[];
  /** "<class> <vendor> <device>": "1200 1da3 1020". */
  readonly models: readonly string[];
}

/** VGA, 3D and other display controllers, and processing accelerators. */
export const DEFAULT_GPU_FILTER: GpuFilter = { classes: ['0300', '0302', '0380', '1200'], vendors: [], models: [] };

const normalise = (entry: unknown): string | undefined => {
  if (typeof entry !== 'string' && typeof entry !== 'number') return undefined;
  const parts = String(entry).trim().toLowerCase().split(/\s+/);
  return parts.every((part) => /^[0-9a-f]{1,4}$/.test(part)) ? parts.map((part) => part.padStart(4, '0')).join(' ') : undefined;
};

/** Throws when the text is not a YAML mapping of lists. A file replaces the default filter entirely. */
export function parseGpuFilter(text: string): GpuFilter {
  const parsed: unknown = parseYaml(text);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the GPU config is not a YAML mapping');
  const read = (key: 'classes' | 'vendors' | 'models', parts: number): string[] => {
    const value = (parsed as Record<string, unknown>)[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw new Error(`"${key}" in the GPU config is not a list`);
    return value.map((entry) => {
      const normalised = normalise(entry);
      if (!normalised || normalised.split(' ').length !== parts) throw new Error(`"${key}" entry ${JSON.stringify(entry)} is not ${parts} hex id(s)`);
      return normalised;
    });
  };
  return { classes: read('classes', 1), vendors: read('vendors', 2), models: read('models', 3) };
}

export function gpuFilterMatches(filter: GpuFilter, pciClass: string, vendorId: string, deviceId: string): boolean {
  return (
    filter.classes.includes(pciClass) || filter.vendors.includes(`${pciClass} ${vendorId}`) || filter.models.includes(`${pciClass} ${vendorId} ${deviceId}`)
  );
}

export interface PciNames {
  vendor(vendorId: string): string | undefined;
  device(vendorId: string, deviceId: string): string | undefined;
}

/** pci.ids: vendors at column 0, their devices indented by one tab, subsystems by two. */
export function parsePciIds(text: string): PciNames {
  const vendors = new Map<string, string>();
  const devices = new Map<string, string>();
  let vendor: string | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    // Device classes follow the vendor list; nothing after them names a device.
    if (line.startsWith('C ')) break;
    const vendorMatch = /^([0-9a-f]{4})\s+(.+)$/.exec(line);
    if (vendorMatch?.[1] && vendorMatch[2]) {
      vendor = vendorMatch[1];
      vendors.set(vendor, vendorMatch[2].trim());
      continue;
    }
    const deviceMatch = /^\t([0-9a-f]{4})\s+(.+)$/.exec(line);
    if (vendor && deviceMatch?.[1] && deviceMatch[2]) devices.set(`${vendor}:${deviceMatch[1]}`, deviceMatch[2].trim());
  }
  return { vendor: (id) => vendors.get(id), device: (vendorId, deviceId) => devices.get(`${vendorId}:${deviceId}`) };
}

const PCI_IDS_LOCATIONS = ['/usr/share/hwdata/pci.ids', '/usr/share/misc/pci.ids', '/usr/share/pci.ids'];

export async function collectGpus(probe: InventoryProbe, gpuConfigFile?: string): Promise<Gpu[]> {
  let filter = DEFAULT_GPU_FILTER;
  if (gpuConfigFile) {
    try {
      filter = parseGpuFilter(await readFile(gpuConfigFile, 'utf8'));
    } catch (error) {
      probe.warnOnce('gpu-config', `GPU config file ${gpuConfigFile} could not be used; the default GPU classes apply`, { error: String(error) });
    }
  }
  const hex = (value: string | undefined, digits: number) => value?.replace(/^0x/i, '').toLowerCase().padStart(digits, '0');
  const matching: Omit<Gpu, 'vendor' | 'name'>[] = [];
  for (const address of await probe.files.list('/sys/bus/pci/devices')) {
    const base = `/sys/bus/pci/devices/${address}`;
    const pciClass = hex(await probe.files.value(`${base}/class`), 6)?.slice(0, 4);
    const vendorId = hex(await probe.files.value(`${base}/vendor`), 4);
    const deviceId = hex(await probe.files.value(`${base}/device`), 4);
    if (!pciClass || !vendorId || !deviceId) continue;
    if (gpuFilterMatches(filter, pciClass, vendorId, deviceId)) matching.push({ address, vendor_id: vendorId, device_id: deviceId });
  }
  if (matching.length === 0) return [];
  let names: PciNames | undefined;
  for (const location of PCI_IDS_LOCATIONS) {
    const text = await probe.files.text(location);
    if (text) {
      names = parsePciIds(text);
      break;
    }
  }
  if (!names) probe.warnOnce('pci.ids', 'no pci.ids database on the host; GPUs are reported by PCI ids only');
  return matching.map((gpu) => {
    const vendor = names?.vendor(gpu.vendor_id);
    const name = names?.device(gpu.vendor_id, gpu.device_id);
    return { ...gpu, ...(vendor ? { vendor } : {}), ...(name ? { name } : {}) };
  });
}
