import { describe, expect, it } from 'vitest';
import { EXIT_IMAGE_PULL_FAILED } from '../../../agent/src/contracts.js';
import { createProbeSteps } from '../../../agent/src/steps/index.js';
import { EXIT_TOOL_MISSING } from '../../../agent/src/steps/support.js';
import { nothingInstalled } from './fixtures.js';
import { request, stepContext } from './step-context.js';
import { modelViolations } from '../../support/response-schema.js';
import type { StepType } from '../../../contracts/step-replies.js';

const steps = createProbeSteps({
  resolver: () => {
    throw new Error('no DNS is asked before the missing tool is noticed');
  },
});

const cases: [StepType, unknown[], string][] = [
  [
    'connectivity-check',
    [[{ host_id: '0b3a5c1e-0000-4000-8000-000000000001', nics: [{ name: 'eth0', mac: '02:00:00:00:00:01', ip_addresses: ['10.200.0.2'] }] }]],
    'ping',
  ],
  ['free-network-addresses', [['10.200.0.0/24']], 'nmap'],
  ['ntp-synchronizer', [{ ntp_source: '10.200.0.1' }], 'chronyc'],
  ['installation-disk-speed-check', [{ path: '/dev/sda' }, '120'], 'fio'],
  ['verify-vips', [[{ vip: '10.200.0.100', vip_type: 'api' }]], 'nmap'],
  ['dhcp-lease-allocate', [{ interface: 'eth0', api_vip_mac: '02:00:00:aa:00:01', ingress_vip_mac: '02:00:00:aa:00:02' }], 'dhclient'],
];

describe('a probe step whose tool is not installed', () => {
  it.each(cases)('%s answers exit 127 and names the tool', async (stepType, args, tool) => {
    const reply = await steps[stepType]!(request(stepType, ...args), stepContext(nothingInstalled));
    expect(reply.exit_code).toBe(EXIT_TOOL_MISSING);
    expect(reply.error).toContain(`${tool} is not installed`);
    expect(reply.error).toContain(stepType);
  });

  it('container-image-availability reports each image failed, with exit code 2', async () => {
    const images = ['quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64', 'registry.example.com/tools/must-gather:latest'];
    const reply = await steps['container-image-availability']!(request('container-image-availability', { images, timeout: 60 }), stepContext(nothingInstalled));
    expect(reply.exit_code).toBe(EXIT_IMAGE_PULL_FAILED);
    expect(reply.error).toContain('podman is not installed');
    const output = JSON.parse(reply.output!);
    expect(modelViolations('container_image_availability_response', output)).toEqual([]);
    expect(output.images).toEqual(images.map((name) => ({ name, result: 'failure' })));
  });

  it('inventory still answers, from sysfs and procfs', async () => {
    const context = stepContext(nothingInstalled);
    const reply = await steps.inventory!(request('inventory', context.hostId), context);
    expect(reply.exit_code).toBe(0);
    expect(modelViolations('inventory', JSON.parse(reply.output!))).toEqual([]);
    expect(context.log.warnings.some((warning) => warning.startsWith('lsblk is not installed'))).toBe(true);
  });
});

describe('a probe step with a malformed request', () => {
  it.each([
    ['connectivity-check', ['{"not": "a list"}']],
    ['free-network-addresses', [JSON.stringify(['10.200.0.1/24'])]],
    ['free-network-addresses', [JSON.stringify(['fd00::/64'])]],
    ['ntp-synchronizer', [JSON.stringify({})]],
    ['domain-resolution', [JSON.stringify({ domains: [{}] })]],
    ['installation-disk-speed-check', [JSON.stringify({ path: '/dev/sda' }), 'soon']],
    ['container-image-availability', ['not json']],
    ['tang-connectivity-check', [JSON.stringify({ tang_servers: 'not json' })]],
    ['api-vip-connectivity-check', [JSON.stringify({})]],
    ['verify-vips', [JSON.stringify([{ vip: '10.0.0.1', vip_type: 'dns' }])]],
    ['dhcp-lease-allocate', [JSON.stringify({ interface: 'eth0', api_vip_mac: 'nope', ingress_vip_mac: '02:00:00:aa:00:02' })]],
    ['connectivity-check', []],
  ] satisfies [StepType, string[]][])('%s %j is refused with exit -1 and a reason', async (stepType, args) => {
    const reply = await steps[stepType]!({ step_type: stepType, step_id: 's', args }, stepContext(nothingInstalled));
    expect(reply.exit_code).toBe(-1);
    expect(reply.error).toMatch(new RegExp(stepType.replace(/-/g, '.')));
  });
});
