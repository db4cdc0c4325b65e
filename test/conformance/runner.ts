/**
 * Runs scenarios against both services: each step sent to both at once, answers normalized and
 * compared, judgements compared once both services stopped changing them (settle).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { SIDES, type Answer, type ServiceEndpoint, type Side } from './client.js';
import { compareValues, type Difference } from './compare.js';
import { normalize, normalizeInstallConfig, Placeholders } from './normalize.js';
import type { Recorder } from './report.js';
import { MissingVariable, pick, substitute, type RequestStep, type Scenario, type SettleStep, type WaitStep } from './scenario.js';

export interface Harness {
  endpoints: Record<Side, ServiceEndpoint>;
  recorder: Recorder;
  /** Longest wait for both services to settle (ms). */
  settleTimeoutMs: number;
  /** Reads of an unchanged judgement needed to call a side settled, and the pause between reads. */
  settleReads: number;
  settlePauseMs: number;
}

export const DEFAULT_SETTLE = { settleTimeoutMs: 60_000, settleReads: 3, settlePauseMs: 1_000 } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const is2xx = (status: number) => status >= 200 && status < 300;
const is4xx = (status: number) => status >= 400 && status < 500;

let agentOnly: Set<string> | undefined;
/**
 * Operations openapi.yaml secures with the agent's key alone (as upstream's swagger does): sent as
 * the agent of the scenario's infra-env unless a step says otherwise. Upstream, without
 * authentication, would take them from anyone; we would not.
 */
export function agentOnlyOperations(): Set<string> {
  if (!agentOnly) {
    const document = parseYaml(readFileSync(fileURLToPath(new URL('../../openapi.yaml', import.meta.url)), 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string; security?: Record<string, unknown>[] }>>;
    };
    agentOnly = new Set();
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) {
        if (operation?.operationId && operation.security?.length && operation.security.every((scheme) => Object.keys(scheme).join() === 'agentAuth'))
          agentOnly.add(operation.operationId);
      }
    }
  }
  return agentOnly;
}

/** What each side knows in a scenario: its variables and its placeholders. */
export interface SideState {
  vars: Record<string, string>;
  ids: Placeholders;
}

export function newSideStates(hostIds: readonly string[] = []): Record<Side, SideState> {
  const states = {} as Record<Side, SideState>;
  for (const side of SIDES) {
    const ids = new Placeholders();
    const vars: Record<string, string> = {};
    hostIds.forEach((id, i) => {
      vars[`host${i}`] = id;
      ids.name(id, `host${i}`);
    });
    states[side] = { vars, ids };
  }
  return states;
}

/**
 * The path of a status difference names both codes, so that a row of docs/compatibility.md can
 * accept one pair (an upstream 500 where we answer 404) and no other.
 */
export const statusPath = (ours: number, upstream: number) => `(status ours ${ours}, upstream ${upstream})`;
export const statusClassPath = (ours: string, upstream: string) => `(status class ours ${ours}, upstream ${upstream})`;

/** An error answer's comparable part: its code (upstream sends it as text or number) and kind. */
export function errorShape(body: unknown): { code?: string; kind?: unknown } {
  if (!body || typeof body !== 'object') return { kind: typeof body === 'string' ? '(text)' : undefined };
  const { code, kind } = body as { code?: unknown; kind?: unknown };
  return { ...(code !== undefined ? { code: String(code) } : {}), ...(kind !== undefined ? { kind } : {}) };
}

export function errorReason(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const { reason, message } = body as { reason?: unknown; message?: unknown };
  return reason ?? message;
}

/** Compares two answers to one request; returns whether both accepted. */
export function compareAnswers(
  harness: Harness,
  context: {
    area: string;
    scenario: string;
    step: number;
    operation: string;
    request: { method: string; path: string; body?: unknown };
    compare: RequestStep['compare'];
  },
  answers: Record<Side, Answer>,
  states: Record<Side, SideState>,
): void {
  const { recorder } = harness;
  const base = { area: context.area, scenario: context.scenario, step: context.step, operation: context.operation, request: context.request };
  const ours = answers.ours;
  const upstream = answers.upstream;
  recorder.record({
    ...base,
    check: 'status',
    differences:
      ours.status === upstream.status ? [] : [{ path: statusPath(ours.status, upstream.status), kind: 'status', ours: ours.status, upstream: upstream.status }],
    ...(ours.status === upstream.status ? {} : { reasons: { ours: errorReason(ours.body), upstream: errorReason(upstream.body) } }),
  });
  if (is4xx(ours.status) && is4xx(upstream.status)) {
    recorder.record({
      ...base,
      check: 'error',
      differences: compareValues(errorShape(ours.body), errorShape(upstream.body), '(error)'),
      reasons: { ours: errorReason(ours.body), upstream: errorReason(upstream.body) },
    });
    return;
  }
  if (!is2xx(ours.status) || !is2xx(upstream.status) || context.compare === 'status') return;
  const comparable = (side: Side): unknown => {
    const body = answers[side].body;
    const ids = states[side].ids;
    if (context.compare === 'install-config') return normalizeInstallConfig(body, ids);
    if (context.compare === 'host-progress') {
      const { progress, progress_stages } = (body ?? {}) as { progress?: unknown; progress_stages?: unknown };
      return normalize({ progress, progress_stages }, ids);
    }
    if (context.compare === 'event-names')
      return { names: [...new Set((Array.isArray(body) ? body : []).map((event) => (event as { name?: string }).name ?? '(unnamed)'))] };
    return normalize(body, ids);
  };
  const check =
    context.compare === 'install-config'
      ? 'install-config'
      : context.compare === 'event-names'
        ? 'event-names'
        : context.compare === 'host-progress'
          ? 'host-progress'
          : 'body';
  recorder.record({ ...base, check, differences: compareValues(comparable('ours'), comparable('upstream')) });
}

/** The judgements of a cluster (and its hosts) or of an infra-env's hosts, as compared once settled. */
interface Judgement {
  cluster?: { status?: unknown; status_info?: unknown; validations: Record<string, unknown> };
  hosts: Record<string, { status?: unknown; status_info?: unknown; role?: unknown; suggested_role?: unknown; validations: Record<string, unknown> }>;
}

function validationStatuses(validationsInfo: unknown): Record<string, unknown> {
  let info = validationsInfo;
  if (typeof info === 'string') {
    try {
      info = JSON.parse(info);
    } catch {
      return { '(unparsable validations_info)': info };
    }
  }
  const out: Record<string, unknown> = {};
  if (info && typeof info === 'object') {
    for (const group of Object.values(info as Record<string, unknown>)) {
      if (Array.isArray(group)) for (const validation of group) out[String((validation as { id?: unknown }).id)] = (validation as { status?: unknown }).status;
    }
  }
  return out;
}

function hostJudgements(hosts: unknown, ids: Placeholders): Judgement['hosts'] {
  const out: Judgement['hosts'] = {};
  for (const host of Array.isArray(hosts) ? (hosts as Record<string, unknown>[]) : []) {
    out[ids.of(String(host.id))] = {
      status: host.status,
      status_info: normalize(host.status_info, ids, 'status_info'),
      role: host.role,
      suggested_role: host.suggested_role,
      validations: validationStatuses(host.validations_info),
    };
  }
  return out;
}

async function readJudgement(endpoint: ServiceEndpoint, target: SettleStep, state: SideState): Promise<Judgement | { error: string }> {
  if (target.cluster) {
    const id = substitute(target.cluster, state.vars);
    const answer = await endpoint.send({ method: 'GET', path: `/clusters/${id}` });
    if (!is2xx(answer.status)) return { error: `GET cluster: ${answer.status}` };
    const cluster = answer.body as Record<string, unknown>;
    return {
      cluster: {
        status: cluster.status,
        status_info: normalize(cluster.status_info, state.ids, 'status_info'),
        validations: validationStatuses(cluster.validations_info),
      },
      hosts: hostJudgements(cluster.hosts, state.ids),
    };
  }
  const id = substitute(target.infraEnv!, state.vars);
  const answer = await endpoint.send({ method: 'GET', path: `/infra-envs/${id}/hosts` });
  if (!is2xx(answer.status)) return { error: `GET infra-env hosts: ${answer.status}` };
  return { hosts: hostJudgements(answer.body, state.ids) };
}

/**
 * Polls both sides until each has read the same judgement `settleReads` times in a row (bounded by
 * settleTimeoutMs), then compares. A side that never settles is a difference of its own.
 */
export async function settleAndCompare(
  harness: Harness,
  context: { area: string; scenario: string; step: number },
  target: SettleStep,
  states: Record<Side, SideState>,
): Promise<void> {
  const deadline = Date.now() + harness.settleTimeoutMs;
  const last: Partial<Record<Side, { signature: string; value: Judgement | { error: string }; same: number }>> = {};
  for (;;) {
    await Promise.all(
      SIDES.map(async (side) => {
        const value = await readJudgement(harness.endpoints[side], target, states[side]);
        const signature = JSON.stringify(value);
        const previous = last[side];
        last[side] = { signature, value, same: previous && previous.signature === signature ? previous.same + 1 : 1 };
      }),
    );
    const settled = SIDES.every((side) => (last[side]?.same ?? 0) >= harness.settleReads);
    if (settled || Date.now() > deadline) break;
    await sleep(harness.settlePauseMs);
  }
  const differences: Difference[] = compareValues(last.ours?.value, last.upstream?.value);
  for (const side of SIDES) {
    if ((last[side]?.same ?? 0) < harness.settleReads)
      differences.push({ path: '(settled)', kind: 'value', [side]: `${side} still changing after ${harness.settleTimeoutMs} ms` });
  }
  harness.recorder.record({ ...context, operation: 'settle', check: 'settle', differences });
}

export const DEFAULT_WAIT_MS = 60_000;

/**
 * Polls each side until the field holds one of the values, or without values any non-empty text
 * (bounded). Which of the values each side reached is not compared; a side that reached none by the
 * deadline is a difference of its own.
 */
export async function waitOnBothSides(
  harness: Harness,
  context: { area: string; scenario: string; step: number },
  step: WaitStep,
  states: Record<Side, SideState>,
): Promise<void> {
  const deadline = Date.now() + (step.timeoutMs ?? DEFAULT_WAIT_MS);
  const differences: Difference[] = [];
  await Promise.all(
    SIDES.map(async (side) => {
      const path = substitute(step.path, states[side].vars);
      for (;;) {
        const answer = await harness.endpoints[side].send({ method: 'GET', path });
        const value = is2xx(answer.status) ? pick(answer.body, step.field) : undefined;
        if (typeof value === 'string' && (step.values ? step.values.includes(value) : value !== '')) return;
        if (Date.now() > deadline) {
          differences.push({
            path: `(reached) ${step.field}`,
            kind: 'value',
            [side]: `${JSON.stringify(value)}, ${step.values ? `not one of ${step.values.join(', ')}` : 'still empty'} after ${step.timeoutMs ?? DEFAULT_WAIT_MS} ms`,
          });
          return;
        }
        await sleep(harness.settlePauseMs);
      }
    }),
  );
  harness.recorder.record({ ...context, operation: 'wait', check: 'wait', differences });
}

/** Runs one scenario; returns nothing, everything goes to the recorder. Cleans up what it created. */
export async function runScenario(harness: Harness, scenario: Scenario): Promise<void> {
  const hostIds = Array.from({ length: scenario.hosts ?? 0 }, () => randomUUID());
  const states = newSideStates(hostIds);
  try {
    for (const [index, step] of scenario.steps.entries()) {
      const context = { area: scenario.area, scenario: scenario.id, step: index };
      if (step.kind === 'wait') {
        try {
          for (const side of SIDES) substitute(step.path, states[side].vars);
        } catch (error) {
          if (error instanceof MissingVariable) {
            harness.recorder.skippedSteps++;
            continue;
          }
          throw error;
        }
        await waitOnBothSides(harness, context, step, states);
        continue;
      }
      if (step.kind === 'settle') {
        try {
          for (const side of SIDES) substitute(step.cluster ?? step.infraEnv, states[side].vars);
        } catch (error) {
          if (error instanceof MissingVariable) {
            harness.recorder.skippedSteps++;
            continue;
          }
          throw error;
        }
        await settleAndCompare(harness, context, step, states);
        continue;
      }
      let requests: Record<Side, { method: string; path: string; body?: unknown; raw?: string; agentOf?: string; headers?: Record<string, string> }>;
      try {
        const agentOf = step.agentOf ?? (agentOnlyOperations().has(step.op) ? '{{infraEnv}}' : undefined);
        requests = Object.fromEntries(
          SIDES.map((side) => [
            side,
            substitute({ method: step.method, path: step.path, body: step.body, raw: step.raw, agentOf, headers: step.headers }, states[side].vars),
          ]),
        ) as typeof requests;
      } catch (error) {
        if (error instanceof MissingVariable) {
          // An earlier step failed on a side: what depends on it cannot run (its failure was recorded).
          harness.recorder.skippedSteps++;
          continue;
        }
        throw error;
      }
      const answers = Object.fromEntries(
        await Promise.all(SIDES.map(async (side) => [side, await harness.endpoints[side].send(requests[side])] as const)),
      ) as Record<Side, Answer>;
      for (const side of SIDES) {
        for (const [name, field] of Object.entries(step.save ?? {})) {
          const value = is2xx(answers[side].status) ? pick(answers[side].body, field) : undefined;
          if (typeof value === 'string' && value) {
            states[side].vars[name] = value;
            states[side].ids.name(value, name);
          }
        }
      }
      if (step.setup) {
        // A setup step failing on one side only is still a difference: later steps would compare nothing.
        if (is2xx(answers.ours.status) !== is2xx(answers.upstream.status)) {
          harness.recorder.record({
            ...context,
            operation: step.op,
            check: 'status',
            request: { method: step.method, path: step.path, body: step.body ?? step.raw },
            differences: [
              { path: statusPath(answers.ours.status, answers.upstream.status), kind: 'status', ours: answers.ours.status, upstream: answers.upstream.status },
            ],
            reasons: { ours: errorReason(answers.ours.body), upstream: errorReason(answers.upstream.body) },
          });
        }
        continue;
      }
      compareAnswers(
        harness,
        { ...context, operation: step.op, request: { method: step.method, path: step.path, body: step.body ?? step.raw }, compare: step.compare },
        answers,
        states,
      );
    }
  } finally {
    await cleanUp(harness, states);
    harness.recorder.scenarios++;
  }
}

/**
 * Deletes what a scenario created on each side (clusters with their hosts, then infra-envs), not
 * compared: upstream's monitors visit every live cluster each period, so the corpus does not let them pile up.
 */
export async function cleanUp(harness: Harness, states: Record<Side, SideState>): Promise<void> {
  await Promise.all(
    SIDES.map(async (side) => {
      const vars = Object.entries(states[side].vars);
      for (const [name, id] of vars) if (/^cluster/.test(name)) await harness.endpoints[side].send({ method: 'DELETE', path: `/clusters/${id}` });
      for (const [name, id] of vars) {
        if (!/^infraEnv/.test(name)) continue;
        for (const [hostVar, hostId] of vars)
          if (/^host\d+$/.test(hostVar)) await harness.endpoints[side].send({ method: 'DELETE', path: `/infra-envs/${id}/hosts/${hostId}` });
        await harness.endpoints[side].send({ method: 'DELETE', path: `/infra-envs/${id}` });
      }
    }),
  );
}

/** Runs `tasks` with at most `concurrency` at once. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<void>,
  onProgress?: (done: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index]!, index);
      onProgress?.(++done);
    }
  });
  await Promise.all(workers);
}
