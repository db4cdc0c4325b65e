/** `chronyc -n sources`: one line per source, "^" (server) or "=" (peer) or "#" (refclock) then the state. */

export type SourceState = 'synced' | 'combined' | 'not_combined' | 'error' | 'variable' | 'unreachable';

export interface ChronySource {
  readonly address: string;
  readonly state: SourceState;
}

const STATES: Record<string, SourceState> = {
  '*': 'synced',
  '+': 'combined',
  '-': 'not_combined',
  '?': 'unreachable',
  x: 'error',
  '~': 'variable',
};

/** Servers only, as upstream reports them (peers and reference clocks are not NTP sources the service set). */
export function parseChronycSources(output: string): ChronySource[] {
  return output.split('\n').flatMap((line): ChronySource[] => {
    const match = /^\^([*+\-?x~])\s+(\S+)/.exec(line);
    const state = match?.[1] ? STATES[match[1]] : undefined;
    return match?.[2] && state ? [{ address: match[2], state }] : [];
  });
}
