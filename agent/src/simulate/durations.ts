import { HOST_STAGES } from '../installer/stages.js';

/** Simulated installer stage durations: `stage=ms,stage=ms` (`default=ms` for the rest) or a JSON object. */
export function parseStageDurations(text: string | undefined): Record<string, number> | undefined {
  if (!text) return undefined;
  const entries: [string, number][] = text.trim().startsWith('{')
    ? Object.entries(JSON.parse(text) as Record<string, number>)
    : text
        .split(',')
        .filter(Boolean)
        .map((pair) => {
          const at = pair.lastIndexOf('=');
          return [pair.slice(0, at).trim(), Number(pair.slice(at + 1))];
        });
  for (const [stage, ms] of entries) if (!stage || !Number.isFinite(ms) || ms < 0) throw new RangeError(`bad entry ${stage}=${ms}`);
  return Object.fromEntries(entries);
}

/** Every installation stage taking `ms`: a simulated installation as quick as a test or a bench wants it. */
export function everyStageTaking(ms: number): Record<string, number> {
  return Object.fromEntries(HOST_STAGES.map((stage) => [stage, ms]));
}
