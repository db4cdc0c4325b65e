import {
  ChangeResourceRecordSetsCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
  type Route53ClientConfig,
} from '@aws-sdk/client-route-53';
import type { DnsRecord, DnsZones } from '../../ports/dns.js';

export interface Route53Options {
  /** Managed base domain → Route53 hosted zone id. */
  hostedZones: Record<string, string>;
  client?: Route53Client;
  clientConfig?: Route53ClientConfig;
}

const MAX_PAGES = 100;
const withDot = (name: string) => (name.endsWith('.') ? name : `${name}.`);
const withoutDot = (name: string) => name.replace(/\.$/, '');

export function createRoute53Zones(options: Route53Options): DnsZones {
  const client = options.client ?? new Route53Client(options.clientConfig ?? {});
  const zoneId = (zone: string) => {
    const id = options.hostedZones[zone];
    if (!id) throw new Error(`${zone} is not a managed base domain`);
    return id;
  };

  return {
    async upsert(zone, records) {
      if (records.length === 0) return;
      await client.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: zoneId(zone),
          ChangeBatch: {
            Changes: records.map((record) => ({
              Action: 'UPSERT',
              ResourceRecordSet: {
                Name: withDot(record.name),
                Type: record.type,
                TTL: record.ttl,
                ResourceRecords: record.values.map((Value) => ({ Value })),
              },
            })),
          },
        }),
      );
    },

    async remove(zone, records) {
      const existing = await this.list(zone);
      const doomed = existing.filter((record) =>
        records.some((r) => withoutDot(r.name) === record.name && r.type === record.type),
      );
      if (doomed.length === 0) return;
      await client.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: zoneId(zone),
          ChangeBatch: {
            Changes: doomed.map((record) => ({
              Action: 'DELETE',
              ResourceRecordSet: {
                Name: withDot(record.name),
                Type: record.type,
                TTL: record.ttl,
                ResourceRecords: record.values.map((Value) => ({ Value })),
              },
            })),
          },
        }),
      );
    },

    async list(zone) {
      const records: DnsRecord[] = [];
      let startName: string | undefined;
      let startType: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await client.send(
          new ListResourceRecordSetsCommand({
            HostedZoneId: zoneId(zone),
            StartRecordName: startName,
            StartRecordType: startType as never,
          }),
        );
        for (const set of result.ResourceRecordSets ?? []) {
          if (set.Type !== 'A' && set.Type !== 'AAAA') continue;
          records.push({
            name: withoutDot(set.Name!).replace(/\\052/g, '*'),
            type: set.Type,
            ttl: set.TTL ?? 60,
            values: (set.ResourceRecords ?? []).map((r) => r.Value!),
          });
        }
        if (!result.IsTruncated) return records;
        startName = result.NextRecordName;
        startType = result.NextRecordType;
      }
      throw new Error(`listing records of ${zone} exceeded ${MAX_PAGES} pages`);
    },
  };
}
