import { machine } from 'node:os';
import { parseDmidecodeMemory } from './parse-dmidecode.js';
import { parseCpuinfo, parseLscpu, type CpuFacts } from './parse-lscpu.js';
import type { InventoryProbe } from './probe.js';

export interface Cpu {
  count?: number;
  architecture?: string;
  model_name?: string;
  frequency?: number;
  flags: string[];
}

export interface Memory {
  physical_bytes?: number;
  usable_bytes?: number;
  physical_bytes_method?: 'dmidecode' | 'ghw' | 'meminfo';
}

export async function collectCpu(probe: InventoryProbe): Promise<Cpu> {
  const cpuinfoText = await probe.files.text('/proc/cpuinfo');
  const cpuinfo: CpuFacts = cpuinfoText ? parseCpuinfo(cpuinfoText) : { flags: [] };
  const lscpuOutput = await probe.tool('lscpu', ['-J'], 'CPU facts come from /proc/cpuinfo');
  let lscpu: CpuFacts | undefined;
  if (lscpuOutput !== undefined) {
    try {
      lscpu = parseLscpu(lscpuOutput);
    } catch (error) {
      probe.warnOnce('lscpu-parse', 'lscpu output could not be read; CPU facts come from /proc/cpuinfo', { error: String(error) });
    }
  }
  if (!lscpu && !cpuinfoText) probe.warnOnce('cpu', 'neither lscpu nor /proc/cpuinfo is available; the CPU is reported by architecture only');
  const flags = lscpu?.flags.length ? lscpu.flags : cpuinfo.flags;
  return {
    count: lscpu?.count ?? cpuinfo.count,
    architecture: lscpu?.architecture ?? machine(),
    model_name: lscpu?.modelName ?? cpuinfo.modelName,
    // Virtual machines often have no MHz line in lscpu; /proc/cpuinfo still has the clock.
    frequency: lscpu?.frequencyMhz ?? cpuinfo.frequencyMhz ?? 0,
    flags: [...flags],
  };
}

const KIB = 1024;

export async function collectMemory(probe: InventoryProbe): Promise<Memory> {
  const meminfo = await probe.files.text('/proc/meminfo');
  const totalKib = meminfo?.match(/^MemTotal:\s+(\d+)\s*kB/m)?.[1];
  const usable = totalKib ? Number(totalKib) * KIB : undefined;
  if (usable === undefined) probe.warnOnce('meminfo', '/proc/meminfo has no MemTotal; usable memory is not reported');

  const dmidecode = await probe.tool('dmidecode', ['-t', '17'], 'physical memory is counted from sysfs memory blocks or /proc/meminfo');
  const fromModules = dmidecode === undefined ? undefined : parseDmidecodeMemory(dmidecode);
  if (fromModules !== undefined) return { physical_bytes: fromModules, usable_bytes: usable, physical_bytes_method: 'dmidecode' };

  const fromBlocks = await onlineMemoryBlockBytes(probe);
  // "ghw" is upstream's name for this method: the library it uses counts online sysfs memory blocks.
  if (fromBlocks !== undefined) return { physical_bytes: fromBlocks, usable_bytes: usable, physical_bytes_method: 'ghw' };
  return { physical_bytes: usable, usable_bytes: usable, physical_bytes_method: 'meminfo' };
}

async function onlineMemoryBlockBytes(probe: InventoryProbe): Promise<number | undefined> {
  const blockSize = Number.parseInt((await probe.files.value('/sys/devices/system/memory/block_size_bytes')) ?? '', 16);
  if (!Number.isFinite(blockSize) || blockSize <= 0) return undefined;
  const blocks = (await probe.files.list('/sys/devices/system/memory')).filter((name) => /^memory\d+$/.test(name));
  let online = 0;
  for (const block of blocks) {
    // Blocks without an "online" file cannot be offlined and are therefore online.
    const state = await probe.files.value(`/sys/devices/system/memory/${block}/online`);
    if (state === undefined || state === '1') online += 1;
  }
  return online > 0 ? online * blockSize : undefined;
}
