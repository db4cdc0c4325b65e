import { describe, expect, it } from 'vitest';
import { eventView } from '../../lambdas/domain/events/events.js';
import { buildTriggeredEvent, triggeredEventProps, type TriggerEventParams } from '../../lambdas/domain/events/triggered-event.js';

const CLUSTER = '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01';
const at = new Date('2026-01-01T00:00:00.000Z');
const build = (params: Partial<TriggerEventParams>) =>
  buildTriggeredEvent(
    { severity: 'info', message: 'm', event_time: '2020-01-01T00:00:00Z', ...params },
    { orgId: 'o', eventId: 'e', at, subject: { clusterId: CLUSTER } },
  );

describe('events sent through POST /v2/events', () => {
  it("reads props as upstream's service does", () => {
    expect(triggeredEventProps(undefined)).toBeUndefined();
    expect(triggeredEventProps('')).toBeUndefined();
    expect(triggeredEventProps('not json')).toBeUndefined();
    expect(triggeredEventProps('{"a":1}')).toEqual({ a: 1 });
    expect(triggeredEventProps('[{"a":1}]')).toEqual({ a: 1 });
    expect(triggeredEventProps('["a","b"]')).toEqual({ a: 'b' });
    expect(triggeredEventProps('["a",1,"a",2]')).toEqual({ a: 2 });
    for (const none of ['{}', '[]', '"s"', '5', 'null', '["a","b","c"]', '[{"a":1},{"b":2}]', '[1,2]']) expect(triggeredEventProps(none), none).toBeUndefined();
    // Property names that look like secrets are never kept.
    expect(triggeredEventProps('{"password":"p","pull_secret":"s","kept":true}')).toEqual({ kept: true });
  });

  it("takes the service's time, the category user by default, and refuses what upstream refuses", () => {
    const event = build({ name: 'n', props: '{"z":1,"a":{"y":1,"b":2}}' });
    expect(event).toEqual({
      orgId: 'o',
      eventId: 'e',
      name: 'n',
      severity: 'info',
      category: 'user',
      message: 'm',
      eventTime: at.toISOString(),
      clusterId: CLUSTER,
      props: { z: 1, a: { y: 1, b: 2 } },
    });
    // Listed with the props' keys sorted at every level, as upstream's JSON encoder writes them.
    expect(eventView(event).props).toBe('{"a":{"b":2,"y":1},"z":1}');
    expect(build({ category: 'metrics' }).category).toBe('metrics');
    expect(() => build({ category: 'audit' })).toThrow('category in body should be one of [user metrics]');
    expect(() => build({ message: 'x'.repeat(4_097) })).toThrow(/at most 4096/);
    expect(build({ message: 'x'.repeat(4_096) }).message).toHaveLength(4_096);
  });

  it('is listed without a name when sent without one', () => {
    expect(eventView(build({}))).not.toHaveProperty('name');
    expect(eventView(build({ name: 'n' })).name).toBe('n');
  });
});
