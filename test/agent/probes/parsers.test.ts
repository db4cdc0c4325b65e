import { describe, expect, it } from 'vitest';
import { parseDmidecodeMemory } from '../../../agent/src/inventory/parse-dmidecode.js';
import { parseIpAddr, parseIpRoute } from '../../../agent/src/inventory/parse-ip.js';
import { parseLsblk } from '../../../agent/src/inventory/parse-lsblk.js';
import { parseCpuinfo, parseLscpu } from '../../../agent/src/inventory/parse-lscpu.js';
import { parseProcIfInet6, parseProcIpv4Routes, parseProcIpv6Routes } from '../../../agent/src/inventory/parse-proc-net.js';
import { parseGpuFilter, parsePciIds, gpuFilterMatches, DEFAULT_GPU_FILTER } from '../../../agent/src/inventory/gpus.js';
import { parseArping } from '../../../agent/src/steps/parsers/arping.js';
import { parseChronycSources } from '../../../agent/src/steps/parsers/chronyc.js';
import { parseFio } from '../../../agent/src/steps/parsers/fio.js';
import { parseNmapXml, upHosts } from '../../../agent/src/steps/parsers/nmap.js';
import { parsePing } from '../../../agent/src/steps/parsers/ping.js';
import { fixture } from './fixtures.js';

describe('lsblk', () => {
  it('reads util-linux 2.38 JSON from this VM', () => {
    const devices = parseLsblk(fixture('lsblk-vm.json'));
    expect(devices.map((device) => device.name)).toEqual(['zram0', 'vda']);
    const vda = devices[1]!;
    expect(vda).toMatchObject({
      path: '/dev/vda',
      type: 'disk',
      sizeBytes: 274877906944,
      rotational: true,
      removable: false,
      vendor: '0x1af4',
      mountpoints: ['/'],
    });
    expect(vda.serial).toBeUndefined();
  });

  it('reads nested partitions, LVM holders, trimmed vendors and mountpoints', () => {
    const devices = parseLsblk(fixture('lsblk-baremetal.json'));
    const sda = devices.find((device) => device.name === 'sda')!;
    expect(sda).toMatchObject({ vendor: 'ATA', model: 'Samsung SSD 860', wwn: '0x5002538e40a1b2c3', hctl: '0:0:0:0', rotational: false, transport: 'sata' });
    expect(sda.children.map((child) => child.name)).toEqual(['sda1', 'sda2']);
    expect(sda.children[1]!.children.map((child) => [child.name, child.mountpoints])).toEqual([
      ['dm-0', ['/']],
      ['dm-1', ['[SWAP]']],
    ]);
    expect(devices.find((device) => device.name === 'sr0')?.type).toBe('rom');
  });

  it('reads the string-typed numbers and booleans of util-linux 2.32', () => {
    const [vda] = parseLsblk(fixture('lsblk-util-linux-2.32.json'));
    expect(vda).toMatchObject({ sizeBytes: 128849018880, rotational: true, removable: false, readOnly: false });
    expect(vda!.children[0]).toMatchObject({ name: 'vda1', partlabel: 'BIOS-BOOT', sizeBytes: 1048576 });
  });

  it('rejects text that is not lsblk JSON', () => {
    expect(() => parseLsblk('{"devices": []}')).toThrow(/blockdevices/);
    expect(() => parseLsblk('lsblk: unknown column')).toThrow();
  });
});

describe('ip', () => {
  it('reads links, kinds, flags and addresses', () => {
    const links = parseIpAddr(fixture('ip-addr-vm.json'));
    const eth0 = links.find((link) => link.name === 'eth0')!;
    expect(eth0).toMatchObject({ macAddress: '02:fc:00:00:00:01', mtu: 1400, linkType: 'ether' });
    expect(eth0.addresses.map((address) => `${address.address}/${address.prefixLength}`)).toEqual(expect.arrayContaining(['192.0.2.2/24', 'fd00::2/64']));
    expect(links.find((link) => link.name === 'ifb0')?.kind).toBe('ifb');
    expect(links.find((link) => link.name === 'lo')?.flags).toContain('LOOPBACK');
  });

  it("reads bond members' permanent MACs, bonds and VLANs", () => {
    const links = parseIpAddr(fixture('ip-addr-baremetal.json'));
    expect(links.find((link) => link.name === 'eno2')?.permanentMac).toBe('b8:ce:f6:12:34:57');
    expect(links.find((link) => link.name === 'bond0')?.kind).toBe('bond');
    expect(links.find((link) => link.name === 'bond0.100')?.kind).toBe('vlan');
  });

  it('reads the veth of a test namespace', () => {
    const links = parseIpAddr(fixture('ip-addr-netns.json'));
    const veth = links.find((link) => link.name === 'h2va')!;
    expect(veth).toMatchObject({ kind: 'veth', mtu: 9000 });
    expect(veth.addresses.filter((address) => address.scope === 'global').map((address) => address.address)).toEqual(['10.200.1.1', 'fd00:200:1::1']);
  });

  it('reads routes of both families, and an empty answer as none', () => {
    expect(parseIpRoute(fixture('ip-route4-vm.json'), 4)).toEqual([
      expect.objectContaining({ destination: 'default', gateway: '192.0.2.1', device: 'eth0' }),
      expect.objectContaining({ destination: '192.0.2.0/24', device: 'eth0', preferredSource: '192.0.2.2' }),
    ]);
    const v6 = parseIpRoute(fixture('ip-route6-vm.json'), 6);
    expect(v6.find((route) => route.destination === 'default')).toMatchObject({ gateway: 'fd00::1', metric: 1024, family: 6 });
    expect(parseIpRoute('', 6)).toEqual([]);
    expect(() => parseIpRoute('{}', 4)).toThrow(/array/);
  });
});

describe('lscpu and /proc/cpuinfo', () => {
  it('reads the flat JSON of this VM', () => {
    const cpu = parseLscpu(fixture('lscpu-x86_64-vm.json'));
    expect(cpu).toMatchObject({ architecture: 'x86_64', modelName: 'Intel(R) Xeon(R) Processor', count: 2 });
    expect(cpu.flags).toContain('fpu');
    expect(cpu.frequencyMhz).toBeUndefined();
  });

  it('reads fields nested under children, taking the highest clock', () => {
    const cpu = parseLscpu(fixture('lscpu-aarch64-nested.json'));
    expect(cpu).toMatchObject({ architecture: 'aarch64', modelName: 'Neoverse-N1', count: 80, frequencyMhz: 3000 });
    expect(cpu.flags).toEqual(expect.arrayContaining(['asimd', 'atomics']));
  });

  it('reads /proc/cpuinfo', () => {
    const cpu = parseCpuinfo(
      'processor\t: 0\nmodel name\t: Example CPU\ncpu MHz\t\t: 2394.454\nflags\t\t: fpu vme hypervisor\n\nprocessor\t: 1\nmodel name\t: Example CPU\n',
    );
    expect(cpu).toEqual({ modelName: 'Example CPU', count: 2, frequencyMhz: 2394.454, flags: ['fpu', 'vme', 'hypervisor'] });
  });
});

describe('dmidecode', () => {
  it('sums module sizes across units and skips empty slots', () => {
    expect(parseDmidecodeMemory(fixture('dmidecode-t17.txt'))).toBe(64 * 1024 ** 3);
  });
  it('answers undefined when there are no tables', () => {
    expect(parseDmidecodeMemory('# dmidecode 3.4\nScanning /dev/mem for entry point.\n')).toBeUndefined();
  });
});

describe('/proc/net', () => {
  it('reads IPv4 routes from little-endian hex', () => {
    const table =
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n' +
      'eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n' +
      'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n';
    expect(parseProcIpv4Routes(table)).toEqual([
      { family: 4, destination: 'default', gateway: '192.0.2.1', device: 'eth0', metric: 100 },
      { family: 4, destination: '192.0.2.0/24', device: 'eth0', metric: 0 },
    ]);
  });
  it('reads IPv6 routes and addresses', () => {
    const routes =
      '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000001 00000000 00450003 eth0\n' +
      'fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001 eth0\n';
    expect(parseProcIpv6Routes(routes)).toEqual([
      { family: 6, destination: 'default', gateway: 'fd00::1', device: 'eth0', metric: 1024 },
      { family: 6, destination: 'fd00::/64', device: 'eth0', metric: 256 },
    ]);
    expect(parseProcIfInet6('fd000000000000000000000000000002 02 40 00 80     eth0\nfe8000000000000000fc00fffe000001 02 40 20 80     eth0\n')).toEqual([
      { device: 'eth0', address: 'fd00::2', prefixLength: 64, scope: 'global' },
      { device: 'eth0', address: 'fe80::fc:ff:fe00:1', prefixLength: 64, scope: 'link' },
    ]);
  });
});

describe('GPU filter and pci.ids', () => {
  it("reads upstream's example config: classes, class+vendor, class+vendor+device", () => {
    const filter = parseGpuFilter(fixture('gpu-config.yaml'));
    expect(filter).toEqual({ classes: ['0300'], vendors: ['0302 10de'], models: ['1200 1da3 1020'] });
    expect(gpuFilterMatches(filter, '0300', '8086', '1234')).toBe(true);
    expect(gpuFilterMatches(filter, '0302', '10de', '1eb8')).toBe(true);
    expect(gpuFilterMatches(filter, '0302', '1002', '1eb8')).toBe(false);
    expect(gpuFilterMatches(filter, '1200', '1da3', '1020')).toBe(true);
    expect(gpuFilterMatches(filter, '1200', '1da3', '1000')).toBe(false);
    expect(gpuFilterMatches(DEFAULT_GPU_FILTER, '1200', '1da3', '1000')).toBe(true);
  });
  it('rejects malformed configs', () => {
    expect(() => parseGpuFilter('- 0300')).toThrow(/mapping/);
    expect(() => parseGpuFilter('vendors: ["10de"]')).toThrow(/2 hex/);
  });
  it('names vendors and devices', () => {
    const names = parsePciIds(fixture('pci.ids'));
    expect(names.vendor('10de')).toBe('NVIDIA Corporation');
    expect(names.device('10de', '1eb8')).toBe('TU104GL [Tesla T4]');
    expect(names.device('1da3', '1020')).toBe('Gaudi2 AI Training Accelerator');
    expect(names.device('10de', '1533')).toBeUndefined();
  });
});

describe('ping', () => {
  it('reads success, loss, and the round trip', () => {
    expect(parsePing(fixture('ping-success.txt'))).toEqual({ transmitted: 10, received: 10, errors: 0, packetLossPercent: 0, averageRttMs: 0.058 });
    expect(parsePing(fixture('ping6-success.txt'))).toMatchObject({ received: 3, averageRttMs: 0.054 });
    expect(parsePing(fixture('ping-failure.txt'))).toEqual({ transmitted: 3, received: 0, errors: 0, packetLossPercent: 100 });
  });
  it('reads MTU probes: errors when the packet is too big', () => {
    expect(parsePing(fixture('ping-mtu-ok.txt'))).toMatchObject({ received: 3, packetLossPercent: 0 });
    expect(parsePing(fixture('ping-mtu-too-big.txt'))).toMatchObject({ received: 0, errors: 3, packetLossPercent: 100 });
  });
  it('has no summary when ping could not send', () => {
    expect(parsePing(fixture('ping-unreachable.txt'))).toBeUndefined();
  });
});

describe('arping', () => {
  it('reads iputils replies', () => {
    expect(parseArping(fixture('arping-iputils-success.txt'))).toEqual([{ ip: '10.200.1.2', mac: '06:07:ba:03:b4:34' }]);
    expect(parseArping(fixture('arping-iputils-failure.txt'))).toEqual([]);
  });
  it('reads Habets arping replies', () => {
    expect(parseArping(fixture('arping-success.txt'))).toEqual([{ ip: '10.200.1.2', mac: '06:07:ba:03:b4:34' }]);
    expect(parseArping(fixture('arping-failure.txt'))).toEqual([]);
  });
  it('reports each answering MAC once (duplicate addresses)', () => {
    const output =
      'Unicast reply from 10.0.0.5 [AA:BB:CC:00:00:01]  0.5ms\nUnicast reply from 10.0.0.5 [AA:BB:CC:00:00:02]  0.6ms\nUnicast reply from 10.0.0.5 [AA:BB:CC:00:00:01]  0.5ms\n';
    expect(parseArping(output).map((reply) => reply.mac)).toEqual(['aa:bb:cc:00:00:01', 'aa:bb:cc:00:00:02']);
  });
});

describe('chronyc', () => {
  it('reads captured sources', () => {
    expect(parseChronycSources(fixture('chronyc-sources.txt'))).toEqual([
      { address: '10.200.1.2', state: 'synced' },
      { address: '10.200.1.99', state: 'unreachable' },
    ]);
    expect(parseChronycSources(fixture('chronyc-sources-after-add.txt')).at(-1)).toEqual({ address: '10.200.1.3', state: 'unreachable' });
  });
  it('maps every state and ignores peers and reference clocks', () => {
    expect(parseChronycSources(fixture('chronyc-sources-all-states.txt')).map((source) => `${source.address}=${source.state}`)).toEqual([
      '192.0.2.10=synced',
      '192.0.2.11=combined',
      '198.51.100.7=not_combined',
      '203.0.113.5=unreachable',
      '192.0.2.12=error',
      '2001:db8::123=variable',
    ]);
  });
});

describe('fio', () => {
  it('reads the 99th percentile fdatasync latency', () => {
    const result = parseFio(fixture('fio-write.json'));
    expect(result).toEqual({ ok: true, syncP99Ns: 3948544 });
  });
  it('reports a failed job', () => {
    expect(parseFio(fixture('fio-error.json'))).toEqual({ ok: false, error: 'fio job failed with error 1' });
    expect(parseFio('fio: no such option')).toMatchObject({ ok: false });
  });
});

describe('nmap XML', () => {
  it('reads a sweep: hosts up with their MACs', () => {
    const hosts = parseNmapXml(fixture('nmap-sweep.xml'));
    expect(hosts).toEqual([
      { state: 'up', ipv4: '10.200.1.2', mac: '06:07:ba:03:b4:34' },
      { state: 'up', ipv4: '10.200.1.1' },
    ]);
  });
  it('tells a taken address from a free one', () => {
    expect(upHosts(parseNmapXml(fixture('nmap-vip-taken.xml')))).toHaveLength(1);
    expect(parseNmapXml(fixture('nmap-vip-free.xml'))).toEqual([]);
  });
  it('reads IPv6 neighbour discovery', () => {
    expect(parseNmapXml(fixture('nmap6-l2.xml'))).toEqual([{ state: 'up', ipv6: 'fd00:200:1::2', mac: '06:07:ba:03:b4:34' }]);
  });
  it('rejects text that is not an nmap report', () => {
    expect(() => parseNmapXml('<html></html>')).toThrow(/nmap/);
  });
});
