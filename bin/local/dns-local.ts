import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DnsRecord, DnsZones } from '../../lambdas/ports/dns.js';
import { replaceFileSync } from './replaced-files.js';

const require = createRequire(import.meta.url);
// dns2 is CommonJS; its bundled types do not cover the server API used here.
const dns2 = require('dns2') as {
  createServer(options: object): DnsServer;
  Packet: {
    TYPE: Record<string, number> & { A: number; AAAA: number };
    CLASS: { IN: number };
    RCODE: Record<'NXDOMAIN' | 'REFUSED', number>;
    createResponseFromRequest(request: unknown): DnsPacket;
  };
};

interface DnsPacket {
  header: { rcode: number; aa?: number };
  questions: { name: string; type: number }[];
  answers: object[];
}
interface DnsServer {
  on(event: 'request', handler: (request: DnsPacket, send: (response: DnsPacket) => void) => void): void;
  on(event: 'error', handler: (error: NodeJS.ErrnoException) => void): void;
  listen(options: object): Promise<{ udp?: { port: number }; tcp?: { port: number } }>;
  close(): Promise<void>;
}

type ZoneFile = Record<string, DnsRecord[]>;

/**
 * The Route53 stand-in: hosted zones kept in one JSON file under the data directory, behind the
 * same DnsZones port the Route53 adapter implements.
 */
export class LocalDnsZones implements DnsZones {
  private zones: ZoneFile;

  constructor(private readonly file: string) {
    this.zones = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ZoneFile) : {};
  }

  private save(): void {
    replaceFileSync(this.file, JSON.stringify(this.zones, null, 2));
  }

  async upsert(zone: string, records: DnsRecord[]): Promise<void> {
    const existing = (this.zones[zone] ??= []);
    for (const record of records) {
      const name = record.name.toLowerCase().replace(/\.$/, '');
      if (name !== zone && !name.endsWith(`.${zone}`)) throw new Error(`${record.name} is not inside zone ${zone}`);
      const index = existing.findIndex((r) => r.name === name && r.type === record.type);
      const stored = { ...record, name };
      if (index >= 0) existing[index] = stored;
      else existing.push(stored);
    }
    this.save();
  }

  async remove(zone: string, records: Pick<DnsRecord, 'name' | 'type'>[]): Promise<void> {
    const existing = this.zones[zone] ?? [];
    this.zones[zone] = existing.filter((r) => !records.some((doomed) => doomed.name.toLowerCase().replace(/\.$/, '') === r.name && doomed.type === r.type));
    this.save();
  }

  async list(zone: string): Promise<DnsRecord[]> {
    return structuredClone(this.zones[zone] ?? []);
  }

  /** Answers a name the way a DNS server for all zones would, wildcards included. */
  resolve(name: string, type: 'A' | 'AAAA'): DnsRecord | undefined {
    const wanted = name.toLowerCase().replace(/\.$/, '');
    const all = Object.values(this.zones)
      .flat()
      .filter((r) => r.type === type);
    const exact = all.find((r) => r.name === wanted);
    if (exact) return exact;
    const parent = wanted.slice(wanted.indexOf('.') + 1);
    return all.find((r) => r.name === `*.${parent}`);
  }

  knows(name: string): boolean {
    const wanted = name.toLowerCase().replace(/\.$/, '');
    return Object.keys(this.zones).some((zone) => wanted === zone || wanted.endsWith(`.${zone}`));
  }
}

export interface DnsServerHandle {
  port: number;
  stop(): Promise<void>;
}

/** Serves the stand-in's records over UDP and TCP on loopback, as Route53 would on the internet. */
export async function startDnsServer(zones: LocalDnsZones, options: { host: string; port: number }): Promise<DnsServerHandle> {
  const { Packet } = dns2;
  const server = dns2.createServer({ udp: true, tcp: true });
  server.on('request', (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    if (question) {
      const type = question.type === Packet.TYPE.AAAA ? 'AAAA' : question.type === Packet.TYPE.A ? 'A' : undefined;
      const record = type ? zones.resolve(question.name, type) : undefined;
      if (record) {
        for (const address of record.values) {
          response.answers.push({
            name: question.name,
            type: Packet.TYPE[record.type],
            class: Packet.CLASS.IN,
            ttl: record.ttl,
            address,
          });
        }
      } else if (!zones.knows(question.name)) {
        response.header.rcode = Packet.RCODE.REFUSED;
      } else if (!type || (!zones.resolve(question.name, 'A') && !zones.resolve(question.name, 'AAAA'))) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
      }
    }
    send(response);
  });
  // A taken port is a start-up error to report, not an unhandled 'error' event that kills the process.
  const failed = new Promise<never>((_resolve, reject) => {
    server.on('error', (error) => {
      reject(
        new Error(
          error.code === 'EADDRINUSE' ? `DNS port ${options.port} on ${options.host} is in use (set ASSISTED_DNS_PORT)` : `DNS server: ${error.message}`,
        ),
      );
    });
  });
  failed.catch(() => undefined);
  const addresses = await Promise.race([
    server.listen({
      udp: { port: options.port, address: options.host },
      tcp: { port: options.port, address: options.host },
    }),
    failed,
  ]);
  return { port: addresses.udp?.port ?? options.port, stop: () => server.close() };
}
