import { ChangeResourceRecordSetsCommand, ListResourceRecordSetsCommand, Route53Client, type Route53ClientConfig, type RRType } from '@aws-sdk/client-route-53';
import type { DnsRecord, DnsZones } from '../../ports/dns.js';
import type { SdkClientOptions } from '../sdk-client.js';

export interface Route53Options extends SdkClientOptions<Route53Client, Route53ClientConfig> {
  /** Managed base domain → Route53 hosted zone id. */
  hostedZones: Record<string, string>;
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

  /** One change batch: every record set given, with its name made absolute. */
  const change = async (zone: string, action: 'UPSERT' | 'DELETE', records: readonly DnsRecord[]) => {
    if (records.length === 0) return;
    await client.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zoneId(zone),
        ChangeBatch: {
          Changes: records.map((record) => ({
            Action: action,
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
  };

  return {
    async upsert(zone, records) {
      await change(zone, 'UPSERT', records);
    },

    async remove(zone, records) {
      const existing = await this.list(zone);
      const doomed = existing.filter((record) => records.some((r) => withoutDot(r.name) === record.name && r.type === record.type));
      await change(zone, 'DELETE', doomed);
    },

    async list(zone) {
      const records: DnsRecord[] = [];
      let startName: string | undefined;
      let startType: RRType | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await client.send(
          new ListResourceRecordSetsCommand({
            HostedZoneId: zoneId(zone),
            StartRecordName: startName,
            StartRecordType: startType,
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
