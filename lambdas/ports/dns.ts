export interface DnsRecord {
  /** Fully qualified name without the trailing dot, e.g. `api.demo.example.com`. */
  name: string;
  type: 'A' | 'AAAA';
  values: string[];
  ttl: number;
}

/** Records in one managed base domain (a Route53 hosted zone in AWS). */
export interface DnsZones {
  upsert(zone: string, records: DnsRecord[]): Promise<void>;
  remove(zone: string, records: Pick<DnsRecord, 'name' | 'type'>[]): Promise<void>;
  list(zone: string): Promise<DnsRecord[]>;
}
