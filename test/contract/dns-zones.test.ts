/**
 * One contract for the DnsZones port, run against the Route53 adapter (its SDK client backed by a
 * fake that enforces Route53's rules: trailing dots, escaped wildcards, DELETE must match exactly)
 * and against the local stand-in. Both must behave the same for the service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ChangeResourceRecordSetsCommand,
  InvalidChangeBatch,
  ListResourceRecordSetsCommand,
  Route53Client,
  type ResourceRecordSet,
} from '@aws-sdk/client-route-53';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalDnsZones } from '../../bin/local/dns-local.js';
import { createRoute53Zones } from '../../lambdas/adapters/route53/zones.js';
import type { DnsZones } from '../../lambdas/ports/dns.js';

function fakeRoute53(): Route53Client {
  const client = new Route53Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const zones = new Map<string, ResourceRecordSet[]>();
  const mock = mockClient(client);
  mock.on(ChangeResourceRecordSetsCommand).callsFake((input) => {
    const sets = zones.get(input.HostedZoneId) ?? [];
    for (const change of input.ChangeBatch.Changes) {
      const set = change.ResourceRecordSet as ResourceRecordSet & { Name: string };
      if (!set.Name.endsWith('.')) throw new InvalidChangeBatch({ message: 'names must be fully qualified', $metadata: {} });
      const stored = { ...set, Name: set.Name.replace(/^\*/, '\\052') };
      const index = sets.findIndex((s) => s.Name === stored.Name && s.Type === stored.Type);
      if (change.Action === 'UPSERT') {
        if (index >= 0) sets[index] = stored;
        else sets.push(stored);
      } else if (change.Action === 'DELETE') {
        if (index < 0 || JSON.stringify(sets[index]) !== JSON.stringify(stored)) {
          throw new InvalidChangeBatch({ message: 'Tried to delete resource record set but it was not found or values did not match', $metadata: {} });
        }
        sets.splice(index, 1);
      }
    }
    zones.set(input.HostedZoneId, sets);
    return { ChangeInfo: { Id: 'c', Status: 'PENDING', SubmittedAt: new Date() } };
  });
  mock.on(ListResourceRecordSetsCommand).callsFake((input) => {
    // Two records a page, to exercise the adapter's paging.
    const all = [...(zones.get(input.HostedZoneId) ?? [])].sort((a, b) => `${a.Name}${a.Type}`.localeCompare(`${b.Name}${b.Type}`));
    const start = input.StartRecordName ? all.findIndex((s) => s.Name === input.StartRecordName && s.Type === input.StartRecordType) : 0;
    const page = all.slice(start, start + 2);
    const next = all[start + 2];
    return { ResourceRecordSets: page, IsTruncated: !!next, NextRecordName: next?.Name, NextRecordType: next?.Type, MaxItems: 2 };
  });
  return client;
}

const implementations: [string, () => { zones: DnsZones; cleanup(): void }][] = [
  ['Route53 adapter', () => ({ zones: createRoute53Zones({ hostedZones: { 'example.test': 'Z1' }, client: fakeRoute53() }), cleanup: () => undefined })],
  [
    'local stand-in',
    () => {
      const directory = mkdtempSync(path.join(tmpdir(), 'dns-'));
      return { zones: new LocalDnsZones(path.join(directory, 'zones.json')), cleanup: () => rmSync(directory, { recursive: true, force: true }) };
    },
  ],
];

describe.each(implementations)('DnsZones contract: %s', (_name, make) => {
  let cleanup: () => void = () => undefined;
  afterEach(() => cleanup());

  function zonesUnderTest(): DnsZones {
    const made = make();
    cleanup = made.cleanup;
    return made.zones;
  }

  it('upserts, lists, replaces and removes records, wildcards included', async () => {
    const zones = zonesUnderTest();
    await zones.upsert('example.test', [
      { name: 'api.demo.example.test', type: 'A', values: ['192.0.2.1'], ttl: 60 },
      { name: 'api-int.demo.example.test', type: 'A', values: ['192.0.2.1'], ttl: 60 },
      { name: '*.apps.demo.example.test', type: 'A', values: ['192.0.2.2'], ttl: 60 },
      { name: 'api.v6.example.test', type: 'AAAA', values: ['2001:db8::1'], ttl: 30 },
      { name: 'api.other.example.test', type: 'A', values: ['192.0.2.9'], ttl: 60 },
    ]);
    const byName = (records: { name: string; type: string }[]) => records.map((r) => `${r.name}/${r.type}`).sort();
    expect(byName(await zones.list('example.test'))).toEqual([
      '*.apps.demo.example.test/A',
      'api-int.demo.example.test/A',
      'api.demo.example.test/A',
      'api.other.example.test/A',
      'api.v6.example.test/AAAA',
    ]);

    await zones.upsert('example.test', [{ name: 'api.demo.example.test', type: 'A', values: ['192.0.2.5'], ttl: 60 }]);
    expect((await zones.list('example.test')).find((r) => r.name === 'api.demo.example.test')!.values).toEqual(['192.0.2.5']);

    await zones.remove('example.test', [
      { name: 'api.demo.example.test', type: 'A' },
      { name: '*.apps.demo.example.test', type: 'A' },
      { name: 'api-int.demo.example.test', type: 'A' },
    ]);
    expect(byName(await zones.list('example.test'))).toEqual(['api.other.example.test/A', 'api.v6.example.test/AAAA']);
  });

  it('treats removing records that do not exist as done', async () => {
    const zones = zonesUnderTest();
    await zones.remove('example.test', [{ name: 'gone.example.test', type: 'A' }]);
    expect(await zones.list('example.test')).toEqual([]);
  });
});
