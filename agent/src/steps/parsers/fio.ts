/** `fio --output-format=json` for the etcd-style fdatasync test: the 99th percentile sync latency. */

export type FioResult = { readonly ok: true; readonly syncP99Ns: number } | { readonly ok: false; readonly error: string };

export function parseFio(output: string): FioResult {
  let parsed: { jobs?: { error?: number; sync?: { lat_ns?: { percentile?: Record<string, number> } } }[] };
  try {
    // fio prints warnings ("fio: ...") before the JSON on some versions.
    const start = output.indexOf('{');
    parsed = JSON.parse(start >= 0 ? output.slice(start) : output) as typeof parsed;
  } catch {
    return { ok: false, error: 'fio output is not JSON' };
  }
  const job = parsed.jobs?.[0];
  if (!job) return { ok: false, error: 'fio output has no job' };
  if (job.error) return { ok: false, error: `fio job failed with error ${job.error}` };
  const p99 = job.sync?.lat_ns?.percentile?.['99.000000'];
  if (typeof p99 !== 'number') return { ok: false, error: 'fio output has no 99th percentile sync latency' };
  return { ok: true, syncP99Ns: p99 };
}
