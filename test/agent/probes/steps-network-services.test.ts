/** Steps that talk to services: tang and the API VIP over HTTP, domain resolution over DNS — all on 127.0.0.1. */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDnsZones, startDnsServer, type DnsServerHandle } from '../../../bin/local/dns-local.js';
import { resolverFor } from '../../../agent/src/steps/dns.js';
import { createProbeSteps } from '../../../agent/src/steps/index.js';
import { nothingInstalled } from './fixtures.js';
import { request, stepContext } from './step-context.js';
import { modelViolations } from '../../support/response-schema.js';

const advertisement = { payload: 'eyJrZXlzIjpbXX0', signatures: [{ protected: 'eyJhbGciOiJFUzUxMiJ9', signature: 'c2lnbmF0dXJl' }] };
const workerIgnition = {
  ignition: { version: '3.2.0', config: { merge: [{ source: 'https://api-int.demo.example.test:22623/config/worker' }] } },
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA'] }] },
  storage: {
    luks: [{ name: 'root', device: '/dev/disk/by-partlabel/root', clevis: { tpm2: true } }],
    files: [
      { path: '/etc/kubernetes/kubeconfig', contents: { source: 'data:,kubeconfig' } },
      { path: '/etc/kubernetes/manifests/keepalived.yaml', contents: { source: 'data:,keepalived' } },
      { path: '/etc/motd', contents: { source: 'data:,hello' } },
    ],
  },
  systemd: { units: [{ name: 'kubelet.service', enabled: true }] },
};

let server: Server;
let base: string;
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((incoming, response) => {
    seen.push(incoming);
    if (incoming.url === '/adv/good-thumbprint')
      return void response.writeHead(200, { 'content-type': 'application/jose+json' }).end(JSON.stringify(advertisement));
    if (incoming.url === '/config/worker') {
      if (incoming.headers.authorization !== 'Bearer day2-token') return void response.writeHead(401).end();
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(workerIgnition));
    }
    if (incoming.url === '/config/not-ignition') return void response.writeHead(200).end('<html>login</html>');
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const steps = createProbeSteps();

describe('tang-connectivity-check', () => {
  it("fetches each server's advertisement", async () => {
    const tangServers = JSON.stringify([{ url: `${base}/`, thumbprint: 'good-thumbprint' }]);
    const reply = await steps['tang-connectivity-check']!(request('tang-connectivity-check', { tang_servers: tangServers }), stepContext(nothingInstalled));
    expect(reply.exit_code).toBe(0);
    const output = JSON.parse(reply.output!);
    expect(modelViolations('tang_connectivity_response', output)).toEqual([]);
    // tang_url is the advertisement's URL, as upstream's agent reports it.
    expect(output).toEqual({ is_success: true, tang_server_response: [{ tang_url: `${base}/adv/good-thumbprint`, ...advertisement }] });
  });

  it('fails, naming the server, when one does not answer an advertisement', async () => {
    const tangServers = JSON.stringify([
      { url: base, thumbprint: 'good-thumbprint' },
      { url: base, thumbprint: 'unknown' },
    ]);
    const reply = await steps['tang-connectivity-check']!(request('tang-connectivity-check', { tang_servers: tangServers }), stepContext(nothingInstalled));
    expect(reply.exit_code).toBe(-1);
    expect(reply.error).toContain(`${base}/adv/unknown answered 404`);
    expect(JSON.parse(reply.output!).is_success).toBe(false);
  });
});

describe('api-vip-connectivity-check', () => {
  it('fetches the worker ignition with the ignition Accept header and token, keeping only what the service reads', async () => {
    const body = { url: `${base}/config/worker`, request_headers: [{ key: 'Authorization', value: 'Bearer day2-token' }] };
    const reply = await steps['api-vip-connectivity-check']!(request('api-vip-connectivity-check', body), stepContext(nothingInstalled));
    expect(reply.exit_code).toBe(0);
    const output = JSON.parse(reply.output!);
    expect(modelViolations('api_vip_connectivity_response', output)).toEqual([]);
    expect(output).toMatchObject({ is_success: true, url: body.url });
    expect(seen.at(-1)?.headers.accept).toBe('application/vnd.coreos.ignition+json; version=3.2.0');
    const ignition = JSON.parse(output.ignition);
    expect(ignition.ignition.version).toBe('3.2.0');
    expect(ignition.storage.luks).toEqual(workerIgnition.storage.luks);
    expect(ignition.storage.files.map((file: { path: string }) => file.path)).toEqual([
      '/etc/kubernetes/kubeconfig',
      '/etc/kubernetes/manifests/keepalived.yaml',
    ]);
    expect(ignition).not.toHaveProperty('systemd');
    expect(ignition).not.toHaveProperty('passwd');
  });

  it('accepts the deprecated ignition_endpoint_token as the bearer token', async () => {
    const reply = await steps['api-vip-connectivity-check']!(
      request('api-vip-connectivity-check', { url: `${base}/config/worker`, ignition_endpoint_token: 'day2-token' }),
      stepContext(nothingInstalled),
    );
    expect(JSON.parse(reply.output!).is_success).toBe(true);
  });

  it('reports download failures as is_success false (exit 0, as the service expects)', async () => {
    for (const [url, reason] of [
      [`${base}/config/worker`, /answered 401/],
      [`${base}/config/not-ignition`, /not JSON/],
      ['http://127.0.0.1:1/config/worker', /ECONNREFUSED/],
    ] as const) {
      const reply = await steps['api-vip-connectivity-check']!(request('api-vip-connectivity-check', { url }), stepContext(nothingInstalled));
      expect(reply.exit_code).toBe(0);
      const output = JSON.parse(reply.output!);
      expect(output).toMatchObject({ is_success: false, url });
      expect(output.download_error).toMatch(reason);
    }
  });
});

describe('domain-resolution', () => {
  let dataDirectory: string;
  let dns: DnsServerHandle;

  beforeAll(async () => {
    dataDirectory = await mkdtemp(join(tmpdir(), 'agent-dns-'));
    const zones = new LocalDnsZones(join(dataDirectory, 'zones.json'));
    await zones.upsert('example.test', [
      { name: 'api.demo.example.test', type: 'A', values: ['192.0.2.50'], ttl: 60 },
      { name: 'api.demo.example.test', type: 'AAAA', values: ['2001:db8::50'], ttl: 60 },
      { name: 'apps.demo.example.test', type: 'A', values: ['192.0.2.51', '192.0.2.52'], ttl: 60 },
    ]);
    dns = await startDnsServer(zones, { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await dns.stop();
    await rm(dataDirectory, { recursive: true, force: true });
  });

  it('resolves A and AAAA records; a name that does not exist is an empty answer, not an error', async () => {
    const resolving = createProbeSteps({ resolver: () => resolverFor([`127.0.0.1:${dns.port}`]) });
    const domains = ['api.demo.example.test', 'apps.demo.example.test', 'api-int.demo.example.test'].map((domain_name) => ({ domain_name }));
    const context = stepContext(nothingInstalled);
    const reply = await resolving['domain-resolution']!(request('domain-resolution', { domains }), context);
    expect(reply.exit_code).toBe(0);
    const output = JSON.parse(reply.output!);
    expect(modelViolations('domain_resolution_response', output)).toEqual([]);
    expect(output.resolutions).toEqual([
      { domain_name: 'api.demo.example.test', ipv4_addresses: ['192.0.2.50'], ipv6_addresses: ['2001:db8::50'], cnames: [] },
      { domain_name: 'apps.demo.example.test', ipv4_addresses: ['192.0.2.51', '192.0.2.52'], ipv6_addresses: [], cnames: [] },
      { domain_name: 'api-int.demo.example.test', ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
    ]);
    expect(context.log.warnings).toEqual([]);
  });

  it('answers empty resolutions and says why in the log when the resolver is unreachable', async () => {
    const unreachable = createProbeSteps({ resolver: () => resolverFor(['127.0.0.1:1']) });
    const context = stepContext(nothingInstalled);
    const reply = await unreachable['domain-resolution']!(request('domain-resolution', { domains: [{ domain_name: 'api.demo.example.test' }] }), context);
    expect(JSON.parse(reply.output!).resolutions).toEqual([{ domain_name: 'api.demo.example.test', ipv4_addresses: [], ipv6_addresses: [], cnames: [] }]);
    expect(context.log.warnings).toEqual(['some DNS lookups failed']);
  });
});
