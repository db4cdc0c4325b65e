/**
 * `lscpu -J`: a list of {field, data} entries, nested under `children` in util-linux ≥ 2.38 on some
 * machines (the model name section groups the topology lines).
 */

export interface CpuFacts {
  readonly architecture?: string;
  readonly modelName?: string;
  readonly count?: number;
  readonly frequencyMhz?: number;
  readonly flags: readonly string[];
}

interface LscpuEntry {
  field?: unknown;
  data?: unknown;
  children?: unknown;
}

function flatten(entries: unknown, into: Map<string, string>): void {
  if (!Array.isArray(entries)) return;
  for (const entry of entries as LscpuEntry[]) {
    if (!entry || typeof entry !== 'object') continue;
    if (typeof entry.field === 'string' && typeof entry.data === 'string') {
      const field = entry.field.replace(/:$/, '').trim();
      if (!into.has(field)) into.set(field, entry.data.trim());
    }
    flatten(entry.children, into);
  }
}

const megahertz = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number.parseFloat(value.replace(',', '.'));
  return Number.isFinite(number) && number > 0 ? number : undefined;
};

/** Throws on text that is not lscpu JSON. */
export function parseLscpu(output: string): CpuFacts {
  const parsed = JSON.parse(output) as { lscpu?: unknown };
  if (!parsed || !Array.isArray(parsed.lscpu)) throw new Error('lscpu output has no "lscpu" array');
  const fields = new Map<string, string>();
  flatten(parsed.lscpu, fields);
  const frequencies = ['CPU MHz', 'CPU max MHz', 'CPU static MHz'].flatMap((field) => megahertz(fields.get(field)) ?? []);
  const count = Number.parseInt(fields.get('CPU(s)') ?? '', 10);
  return {
    architecture: fields.get('Architecture'),
    // s390x has no model name; its machine type stands in for it.
    modelName: fields.get('Model name') ?? fields.get('Machine type'),
    count: Number.isFinite(count) ? count : undefined,
    frequencyMhz: frequencies.length > 0 ? Math.max(...frequencies) : undefined,
    flags: (fields.get('Flags') ?? '').split(/\s+/).filter(Boolean),
  };
}

/** The same facts from /proc/cpuinfo, for hosts without lscpu. */
export function parseCpuinfo(text: string): CpuFacts {
  const blocks = text.split(/\n\s*\n/).filter((block) => block.trim() !== '');
  const first = new Map<string, string>();
  for (const line of blocks[0]?.split('\n') ?? []) {
    const colon = line.indexOf(':');
    if (colon > 0) first.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const processors = (text.match(/^processor\s*:/gm) ?? []).length;
  return {
    modelName: first.get('model name') ?? first.get('cpu model') ?? first.get('machine'),
    count: processors > 0 ? processors : undefined,
    frequencyMhz: megahertz(first.get('cpu mhz')),
    flags: (first.get('flags') ?? first.get('features') ?? '').split(/\s+/).filter(Boolean),
  };
}
