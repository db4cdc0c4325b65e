/** ASL definitions as the local Step Functions stand-in prepares and reads them. */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type StateDefinition = Record<string, Json> & { Type: string };
export interface Definition {
  StartAt: string;
  States: Record<string, StateDefinition>;
  [key: string]: Json;
}

/** AWS Task states have no default timeout; the interpreter's is 60 s. This is the longest a timer allows. */
const NO_TIMEOUT_SECONDS = 2_147_483;

/** Replaces `${Name}` placeholders as CloudFormation's DefinitionSubstitutions does. */
export function substitute(definition: string, substitutions: Record<string, string>): Definition {
  const text = definition.replace(/\$\{([A-Za-z0-9_]+)\}/g, (_whole, name: string) => {
    const value = substitutions[name];
    if (value === undefined) throw new Error(`definition uses \${${name}} but no substitution is given`);
    return value;
  });
  return JSON.parse(text) as Definition;
}

export function withAwsTaskTimeouts(states: Record<string, StateDefinition>): void {
  for (const state of Object.values(states)) {
    if (state.Type === 'Task' && state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined) {
      state.TimeoutSeconds = NO_TIMEOUT_SECONDS;
    }
    if (state.Type === 'Parallel') {
      for (const branch of state.Branches as unknown as Definition[]) withAwsTaskTimeouts(branch.States);
    }
    if (state.Type === 'Map') {
      const processor = (state.ItemProcessor ?? state.Iterator) as unknown as Definition;
      withAwsTaskTimeouts(processor.States);
    }
  }
}

export function collectTaskStates(states: Record<string, StateDefinition>, into: Map<string, StateDefinition>): void {
  for (const [name, state] of Object.entries(states)) {
    if (state.Type === 'Task') into.set(name, state);
    if (state.Type === 'Parallel') for (const branch of state.Branches as unknown as Definition[]) collectTaskStates(branch.States, into);
    if (state.Type === 'Map') collectTaskStates(((state.ItemProcessor ?? state.Iterator) as unknown as Definition).States, into);
  }
}

export function replaceDeep(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((item) => replaceDeep(item, from, to));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceDeep(v, from, to)]));
  }
  return value;
}

/** `$.a.b` style paths, enough for SecondsPath/TimestampPath. */
function simplePath(input: Json, jsonPath: string): Json | undefined {
  if (!jsonPath.startsWith('$')) return undefined;
  let value: Json | undefined = input;
  for (const part of jsonPath.slice(1).split('.').filter(Boolean)) {
    value = value && typeof value === 'object' && !Array.isArray(value) ? value[part] : undefined;
  }
  return value;
}

export function waitDeadline(state: StateDefinition, input: Json, enteredAt: number): number | undefined {
  const seconds = state.Seconds ?? (typeof state.SecondsPath === 'string' ? simplePath(input, state.SecondsPath) : undefined);
  if (typeof seconds === 'number') return enteredAt + seconds * 1000;
  const timestamp = state.Timestamp ?? (typeof state.TimestampPath === 'string' ? simplePath(input, state.TimestampPath) : undefined);
  if (typeof timestamp === 'string' && !Number.isNaN(Date.parse(timestamp))) return Date.parse(timestamp);
  return undefined;
}
