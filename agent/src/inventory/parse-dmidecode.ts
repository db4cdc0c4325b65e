/** `dmidecode -t 17` (memory devices): the installed memory is the sum of the module sizes. */

const UNIT_BYTES: Record<string, number> = {
  bytes: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
};

/** Total bytes of the populated slots; undefined when the output lists none (e.g. no SMBIOS tables). */
export function parseDmidecodeMemory(output: string): number | undefined {
  let total = 0;
  let modules = 0;
  for (const match of output.matchAll(/^\s*Size:\s*(\d+)\s*(bytes|[KMGT]B)\s*$/gim)) {
    const bytes = UNIT_BYTES[(match[2] ?? '').toLowerCase()];
    if (bytes === undefined) continue;
    total += Number(match[1]) * bytes;
    modules += 1;
  }
  return modules > 0 ? total : undefined;
}
