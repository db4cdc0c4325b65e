/** What the benches share to read their knobs and print durations. */

/** A numeric knob from the environment (e.g. FLEET_CLUSTERS=50), or its default. */
export const setting = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/** A duration for a report line: "12.3 s". */
export const seconds = (ms: number, digits = 1): string => `${(ms / 1000).toFixed(digits)} s`;
