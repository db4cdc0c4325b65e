/**
 * The step arguments, against what upstream's agent (assisted-installer-agent @ a272a11) accepts:
 * the literal args below are the shapes its command builders validate (argument count, JSON models),
 * as seen on the wire from upstream's service. Both sides of our protocol go through one definition.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeStepArgs,
  DISK_SPEED_CHECK_TIMEOUT_SECONDS,
  encodeStepArgs,
  freeAddressesNetworks,
  StepArgumentsError,
  type RequestStepType,
  type StepRequests,
} from '../../contracts/step-requests.js';

const HOST = 'b1f5c5b7-caf8-66bd-addd-439b331f2640';

describe("step args as upstream's agent reads them", () => {
  const cases: { [T in RequestStepType]: { request: StepRequests[T]; upstream: string[] } } = {
    inventory: { request: { host_id: HOST }, upstream: [HOST] },
    'connectivity-check': {
      request: [{ host_id: HOST, nics: [{ name: 'eth0', mac: '52:54:00:aa:bb:01', ip_addresses: ['192.168.127.10'] }] }],
      upstream: ['[{"host_id":"b1f5c5b7-caf8-66bd-addd-439b331f2640","nics":[{"name":"eth0","mac":"52:54:00:aa:bb:01","ip_addresses":["192.168.127.10"]}]}]'],
    },
    'free-network-addresses': { request: ['192.168.127.0/24'], upstream: ['["192.168.127.0/24"]'] },
    'installation-disk-speed-check': {
      request: { path: '/dev/vdb', timeout_seconds: DISK_SPEED_CHECK_TIMEOUT_SECONDS },
      upstream: ['{"path":"/dev/vdb"}', '480.00'],
    },
    'container-image-availability': { request: { images: ['quay.io/a/b:1'], timeout: 960 }, upstream: ['{"images":["quay.io/a/b:1"],"timeout":960}'] },
    'domain-resolution': { request: { domains: [{ domain_name: 'api.x.example.com' }] }, upstream: ['{"domains":[{"domain_name":"api.x.example.com"}]}'] },
    'ntp-synchronizer': { request: { ntp_source: '' }, upstream: ['{"ntp_source":""}'] },
    'verify-vips': { request: [{ vip: '192.168.127.5', vip_type: 'api' }], upstream: ['[{"vip":"192.168.127.5","vip_type":"api"}]'] },
    'tang-connectivity-check': {
      request: { tang_servers: '[{"url":"http://t:7500","thumbprint":"abc"}]' },
      upstream: ['{"tang_servers":"[{\\"url\\":\\"http://t:7500\\",\\"thumbprint\\":\\"abc\\"}]"}'],
    },
    'api-vip-connectivity-check': {
      request: { url: 'http://api.x.example.com:22624/config/worker' },
      upstream: ['{"url":"http://api.x.example.com:22624/config/worker"}'],
    },
    'dhcp-lease-allocate': {
      request: { interface: 'eth0', api_vip_mac: '00:1a:4a:00:00:01', ingress_vip_mac: '00:1a:4a:00:00:02' },
      upstream: ['{"interface":"eth0","api_vip_mac":"00:1a:4a:00:00:01","ingress_vip_mac":"00:1a:4a:00:00:02"}'],
    },
    'upgrade-agent': { request: { agent_image: 'quay.io/x/agent:2' }, upstream: ['{"agent_image":"quay.io/x/agent:2"}'] },
    'logs-gather': {
      request: { cluster_id: HOST, infra_env_id: HOST, host_id: HOST, bootstrap: false, installer_gather: true, master_ips: [] },
      upstream: [`{"cluster_id":"${HOST}","infra_env_id":"${HOST}","host_id":"${HOST}","bootstrap":false,"installer_gather":true,"master_ips":[]}`],
    },
    'stop-installation': { request: {}, upstream: [] },
  };

  for (const [stepType, { request, upstream }] of Object.entries(cases) as [RequestStepType, { request: never; upstream: string[] }][]) {
    it(`${stepType}: the service encodes what the agent expects, and decoding gives the request back`, () => {
      const encoded = encodeStepArgs(stepType, request);
      expect(encoded).toEqual(upstream);
      expect(decodeStepArgs(stepType, encoded)).toEqual(request);
    });
  }

  it('refuses the disk speed check with one argument, as upstream\'s agent does ("accepts 2 params")', () => {
    expect(() => decodeStepArgs('installation-disk-speed-check', ['{"path":"/dev/vdb"}'])).toThrow(
      new StepArgumentsError('installation-disk-speed-check takes 2 arguments in args, got 1'),
    );
    expect(() => decodeStepArgs('installation-disk-speed-check', ['{"path":"/dev/vdb"}', 'soon'])).toThrow(/args\[1\] must be a timeout in seconds/);
    expect(() => decodeStepArgs('installation-disk-speed-check', ['{}', '480.00'])).toThrow(/non-empty string "path"/);
  });

  it("refuses what upstream's agent refuses: an inventory arg that is not a UUID, args to stop-installation, a VIP of no known type", () => {
    expect(() => decodeStepArgs('inventory', ['host-1'])).toThrow(/must be the host id/);
    expect(() => decodeStepArgs('inventory', [HOST, '--disk-min-size=1'])).toThrow(/takes 1 argument/);
    expect(() => decodeStepArgs('stop-installation', ['x'])).toThrow(/takes 0 arguments/);
    expect(() => decodeStepArgs('verify-vips', ['[{"vip":"1.2.3.4","vip_type":"dns"}]'])).toThrow(/api or ingress/);
    expect(() => decodeStepArgs('container-image-availability', ['not json'])).toThrow(/not a JSON document/);
  });
});

describe('free-addresses networks', () => {
  it('asks only for IPv4 networks of prefix /22 or narrower, as canonical network CIDRs, once each', () => {
    expect(
      freeAddressesNetworks(['192.168.127.10/24', '192.168.127.11/24', '10.1.2.3/22', '10.8.0.1/21', '127.0.0.1/8', 'fe80::1/64', '172.16.0.9/32']),
    ).toEqual(['192.168.127.0/24', '10.1.0.0/22', '172.16.0.9/32']);
    expect(freeAddressesNetworks(['not-an-address', '300.1.1.1/24'])).toEqual([]);
  });
});
