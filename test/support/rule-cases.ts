/**
 * What the host and cluster state machine tests check the same way for both machines: a case of
 * their rule-by-rule tables against the transition its trigger makes, and their status vocabulary.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { buildEvent, type EventSubject } from '../../lambdas/domain/events/events.js';
import { isNotAllowed, type NotAllowed, type Transition } from '../../lambdas/domain/core/state-rules.js';

/** The moment both tables are judged at, and a time `minutes` before it. */
export const NOW = new Date('2025-03-01T12:00:00.000Z');
export const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

/** The statuses openapi.yaml gives the `cluster` or `host` schema, in its order: the machines' vocabulary must be exactly these. */
export function openapiStatuses(schema: 'cluster' | 'host'): string[] {
  const document = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
    components: { schemas: Record<typeof schema, { properties: { status: { enum: string[] } } }> };
  };
  return document.components.schemas[schema].properties.status.enum;
}

/** A case's expectations: the rule that answers and where it leads, and whatever else it names. */
export interface RuleCaseExpectation<Status extends string, Effect> {
  rule: string;
  to: Status;
  info?: string;
  events?: string[];
  effects?: Effect[];
  changed?: boolean;
}

/**
 * Adds the rule that answered to `hits`, then checks the transition against its case, and that every
 * event it emits is one the catalogue builds with exactly these props (for `subjectOf` the event's
 * name, at NOW).
 */
export function expectRuleCase<Status extends string, Effect>(
  result: Transition<string, Status, Effect> | NotAllowed,
  expected: RuleCaseExpectation<Status, Effect>,
  hits: Set<string>,
  subjectOf: (eventName: string) => EventSubject,
): void {
  if (isNotAllowed(result)) throw new Error(`not allowed: ${result.reason}`);
  hits.add(result.ruleId);
  expect(result.ruleId).toBe(expected.rule);
  expect(result.status).toBe(expected.to);
  if (expected.info !== undefined) expect(result.statusInfo).toBe(expected.info);
  if (expected.events !== undefined) expect(result.events.map((e) => e.name)).toEqual(expected.events);
  if (expected.effects !== undefined) expect(result.effects).toEqual(expected.effects);
  if (expected.changed !== undefined) expect(result.changed).toBe(expected.changed);
  for (const event of result.events) expect(() => buildEvent(event.name, event.props, subjectOf(event.name), NOW, 'e-1')).not.toThrow();
}
