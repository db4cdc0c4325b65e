import { describe, expect, it } from 'vitest';
import { rateMs } from '../../bin/local/scheduler.js';
import { substitute } from '../../bin/local/stepfunctions-local.js';
import { keys } from '../../lambdas/adapters/dynamodb/keys.js';

describe('schedule expressions', () => {
  it.each([
    ['rate(1 minute)', 60_000],
    ['rate(5 minutes)', 300_000],
    ['rate(2 hours)', 7_200_000],
    ['rate(1 day)', 86_400_000],
    ['rate(10 seconds)', 10_000],
  ])('%s is %i ms', (expression, ms) => expect(rateMs(expression)).toBe(ms));

  it.each(['rate(0 minutes)', 'rate(minutes)', 'cron(0 * * * ? *)', 'every minute'])('rejects %s', (expression) => {
    expect(() => rateMs(expression)).toThrow(/is not rate/);
  });
});

describe('definition substitutions', () => {
  it('replaces every placeholder and fails on a missing one', () => {
    const asl = '{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"${Fn}","End":true}}}';
    expect(substitute(asl, { Fn: 'arn:x' }).States.A!.Resource).toBe('arn:x');
    expect(() => substitute(asl, {})).toThrow(/\$\{Fn\}/);
  });
});

describe('key layout', () => {
  it('starts every base-table partition key with the organisation', () => {
    const o = { orgId: 'o1', clusterId: 'c', infraEnvId: 'i', hostId: 'h', tokenId: 't', folder: 'f', fileName: 'n', workflow: 'w', eventId: 'e' };
    for (const key of [
      keys.organisation(o),
      keys.apiToken(o),
      keys.cluster(o),
      keys.infraEnv(o),
      keys.host(o),
      keys.event(o),
      keys.manifest(o),
      keys.workflow(o),
    ]) {
      expect(key.pk.startsWith('ORG#o1')).toBe(true);
    }
  });

  it('puts a host in the sparse active index only while it has a monitor shard', () => {
    const host = { orgId: 'o', infraEnvId: 'i', hostId: 'h' };
    expect(keys.hostIndexes(host).activePk).toBeUndefined();
    expect(keys.hostIndexes({ ...host, monitorShard: 5 })).toMatchObject({ activePk: 'ACTIVE#5', activeSk: keys.host(host).pk });
    expect(keys.hostIndexes({ ...host, clusterId: 'c' }).gsi2pk).toBe(keys.cluster({ orgId: 'o', clusterId: 'c' }).pk);
  });
});
