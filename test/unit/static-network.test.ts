import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectionUuid,
  nmKeyfiles,
  parseNmstate,
  PRE_NETWORK_SCRIPT,
  PRE_NETWORK_SCRIPT_PATH,
  STATIC_NETWORK_DIR,
  staticNetworkConfigProblem,
  StaticNetworkError,
  staticNetworkFiles,
  type StaticNetworkEntry,
} from '../../lambdas/domain/image/static-network/static-network.js';

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

/** A strict reader of the keyfile subset we write: sections, key=value lines, blank lines. */
function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const header = /^\[([a-z0-9-]+)\]$/.exec(line);
    if (header) {
      expect(sections.has(header[1]!), `section ${line} repeated`).toBe(false);
      sections.set(header[1]!, (current = new Map()));
      continue;
    }
    const pair = /^([a-z0-9_-]+)=(\S.*)$/.exec(line);
    expect(pair, `"${line}" is not key=value`).not.toBeNull();
    expect(current, `"${line}" is outside a section`).toBeDefined();
    expect(current!.has(pair![1]!), `key ${pair![1]} repeated`).toBe(false);
    current!.set(pair![1]!, pair![2]!);
  }
  return sections;
}

/** Keyfiles of one document, by interface name, parsed. */
function keyfiles(yaml: string, macs: Record<string, string> = {}) {
  const files = nmKeyfiles(parseNmstate(yaml), macs);
  return new Map(files.map((file) => [file.name.replace(/\.nmconnection$/, ''), parseIni(file.contents)]));
}

const ETH0_STATIC4 = `
interfaces:
  - name: eth0
    type: ethernet
    ipv4: {enabled: true, address: [{ip: 192.0.2.10, prefix-length: 24}]}
routes:
  config:
    - {destination: 0.0.0.0/0, next-hop-address: 192.0.2.1, next-hop-interface: eth0}
`;

const BOND_VLAN = `
interfaces:
  - {name: eth0, type: ethernet, state: up}
  - {name: eth1, type: ethernet, state: up}
  - name: bond0
    type: bond
    mtu: 9000
    link-aggregation: {mode: 802.3ad, options: {miimon: 100, updelay: 200, lacp_rate: fast, xmit_hash_policy: layer3+4}, port: [eth0, eth1]}
  - name: bond0.300
    type: vlan
    vlan: {base-iface: bond0, id: 300}
    ipv4: {enabled: true, address: [{ip: 192.0.2.10, prefix-length: 24}]}
routes:
  config: [{destination: 0.0.0.0/0, next-hop-address: 192.0.2.1, next-hop-interface: bond0.300}]
dns-resolver:
  config: {server: [192.0.2.53], search: [example.com]}
`;

type Expected = Record<string, Record<string, Record<string, string> | undefined>>;

const CASES: [string, string, Expected, Record<string, string>?][] = [
  [
    'static IPv4 with a default route',
    ETH0_STATIC4,
    { eth0: { ipv4: { method: 'manual', address1: '192.0.2.10/24', route1: '0.0.0.0/0,192.0.2.1' }, ipv6: { method: 'disabled' } } },
  ],
  [
    'static IPv6',
    `interfaces: [{name: eth0, type: ethernet, ipv6: {enabled: true, address: [{ip: "2001:db8::10", prefix-length: 64}]}}]
routes: {config: [{destination: "::/0", next-hop-address: "2001:db8::1", next-hop-interface: eth0}]}`,
    { eth0: { ipv4: { method: 'disabled' }, ipv6: { method: 'manual', address1: '2001:db8::10/64', route1: '::/0,2001:db8::1' } } },
  ],
  [
    'dual stack',
    `interfaces:
- name: eth0
  type: ethernet
  ipv4: {enabled: true, address: [{ip: 192.0.2.10, prefix-length: 24}, {ip: 198.51.100.10, prefix-length: 25}]}
  ipv6: {enabled: true, address: [{ip: "2001:db8::10", prefix-length: 64}]}`,
    { eth0: { ipv4: { method: 'manual', address1: '192.0.2.10/24', address2: '198.51.100.10/25' }, ipv6: { method: 'manual', address1: '2001:db8::10/64' } } },
  ],
  [
    'DHCP, SLAAC and the auto-* switches',
    `interfaces:
- {name: eth0, type: ethernet, ipv4: {enabled: true, dhcp: true, auto-dns: false}, ipv6: {enabled: true, dhcp: true, autoconf: true, auto-gateway: false}}
- {name: eth1, type: ethernet, ipv4: {dhcp: true, auto-routes: false}, ipv6: {enabled: true, dhcp: true}}
- {name: eth2, type: ethernet, ipv6: {enabled: true}}`,
    {
      eth0: { ipv4: { method: 'auto', 'ignore-auto-dns': 'true' }, ipv6: { method: 'auto', 'never-default': 'true' } },
      eth1: { ipv4: { method: 'auto', 'ignore-auto-routes': 'true' }, ipv6: { method: 'dhcp' } },
      eth2: { ipv4: { method: 'disabled' }, ipv6: { method: 'link-local' } },
    },
  ],
  [
    'bond of two NICs with a VLAN on top',
    BOND_VLAN,
    {
      eth0: { connection: { type: 'ethernet', master: connectionUuid(0, 'bond0'), 'slave-type': 'bond' }, ipv4: undefined, ipv6: undefined },
      bond0: {
        connection: { type: 'bond', 'interface-name': 'bond0', 'autoconnect-slaves': '1' },
        bond: { mode: '802.3ad', miimon: '100', lacp_rate: 'fast', xmit_hash_policy: 'layer3+4' },
        ethernet: { mtu: '9000' },
        ipv4: { method: 'disabled' },
      },
      'bond0.300': {
        connection: { type: 'vlan', id: 'bond0.300', 'interface-name': 'bond0.300' },
        vlan: { id: '300', parent: 'bond0' },
        ipv4: { method: 'manual', address1: '192.0.2.10/24', dns: '192.0.2.53;', 'dns-search': 'example.com;', route1: '0.0.0.0/0,192.0.2.1' },
      },
    },
  ],
  [
    'the older "slaves" list',
    `interfaces:
- {name: eth0, type: ethernet}
- {name: bond0, type: bond, link-aggregation: {mode: active-backup, slaves: [eth0]}, ipv4: {dhcp: true}}`,
    { eth0: { connection: { master: connectionUuid(0, 'bond0') } }, bond0: { bond: { mode: 'active-backup' }, ipv4: { method: 'auto' } } },
  ],
  [
    'routes with metric and table',
    `${ETH0_STATIC4}    - {destination: 10.0.0.0/8, next-hop-interface: eth0, metric: 50, table-id: 100}
    - {destination: 172.16.0.0/12, next-hop-address: 192.0.2.2, next-hop-interface: eth0, metric: 7}`,
    { eth0: { ipv4: { route2: '10.0.0.0/8,0.0.0.0,50', route2_options: 'table=100', route3: '172.16.0.0/12,192.0.2.2,7' } } },
  ],
  [
    'DNS per family: to the default-route interface, else the first with the family',
    `interfaces:
- {name: eth0, type: ethernet, ipv4: {dhcp: true}, ipv6: {enabled: true, address: [{ip: "fd00::5", prefix-length: 64}]}}
- {name: eth1, type: ethernet, ipv4: {enabled: true, address: [{ip: 192.0.2.10, prefix-length: 24}]}}
routes: {config: [{destination: 0.0.0.0/0, next-hop-address: 192.0.2.1, next-hop-interface: eth1}]}
dns-resolver: {config: {server: [192.0.2.53, "fd00::53", 192.0.2.54], search: [a.example, b.example]}}`,
    { eth0: { ipv4: { method: 'auto' }, ipv6: { dns: 'fd00::53;' } }, eth1: { ipv4: { dns: '192.0.2.53;192.0.2.54;', 'dns-search': 'a.example;b.example;' } } },
  ],
  ['MTU', `interfaces: [{name: eth0, type: ethernet, mtu: 1400, ipv4: {dhcp: true}}]`, { eth0: { ethernet: { mtu: '1400' } } }],
  [
    'MAC pinning: from the MAC map, else from the YAML; a bond or vlan MAC is the device address',
    `interfaces:
- {name: eth0, type: ethernet, ipv4: {dhcp: true}}
- {name: eth1, type: ethernet, mac-address: "52:54:00:00:00:0b", ipv4: {dhcp: true}}
- {name: eth2, type: ethernet}
- {name: bond0, type: bond, mac-address: "52:54:00:00:00:0c", link-aggregation: {mode: balance-rr, port: [eth2]}}`,
    {
      eth0: { ethernet: { 'mac-address': '52:54:00:00:00:0A' } },
      eth1: { ethernet: { 'mac-address': '52:54:00:00:00:0B' } },
      eth2: { ethernet: undefined },
      bond0: { ethernet: { 'cloned-mac-address': '52:54:00:00:00:0C' } },
    },
    { eth0: '52:54:00:00:00:0a' },
  ],
  [
    'state down keeps a profile that does not autoconnect',
    `interfaces: [{name: eth0, type: ethernet, state: down}, {name: eth1, type: ethernet, state: up, ipv4: {dhcp: true}}]`,
    { eth0: { connection: { autoconnect: 'false' } }, eth1: { connection: { autoconnect: 'true', 'autoconnect-priority': '1' } } },
  ],
];

describe('nmstate to keyfiles', () => {
  it.each(CASES)('%s', (_name, yaml, expected, macs) => {
    const files = keyfiles(yaml, macs);
    for (const [iface, sections] of Object.entries(expected)) {
      const file = files.get(iface);
      expect(file, `${iface}.nmconnection`).toBeDefined();
      expect(file!.get('connection')?.get('id')).toBe(iface);
      expect(file!.get('connection')?.get('uuid')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      for (const [section, keys] of Object.entries(sections)) {
        if (keys === undefined) {
          expect(file!.has(section), `${iface} has no [${section}]`).toBe(false);
          continue;
        }
        expect(Object.fromEntries(file!.get(section) ?? [])).toMatchObject(keys);
      }
    }
  });

  it('writes no profile for an absent interface, and the same bytes every time', () => {
    const yaml = `interfaces: [{name: eth0, type: ethernet, state: absent}, {name: eth1, type: ethernet, ipv4: {dhcp: true}}]`;
    expect(nmKeyfiles(parseNmstate(yaml)).map((file) => file.name)).toEqual(['eth1.nmconnection']);
    expect(nmKeyfiles(parseNmstate(BOND_VLAN), {}, 3)).toEqual(nmKeyfiles(parseNmstate(BOND_VLAN), {}, 3));
    expect(connectionUuid(0, 'eth0')).not.toBe(connectionUuid(1, 'eth0'));
  });

  // nmcli --offline reads a keyfile on stdin, verifies the profile as the daemon would and prints it
  // back normalised: every key we wrote must survive with the same value.
  it.runIf(has('nmcli'))('NetworkManager (nmcli --offline) accepts every keyfile unchanged', () => {
    for (const [, yaml, , macs] of CASES) {
      for (const file of nmKeyfiles(parseNmstate(yaml), macs)) {
        const result = spawnSync('nmcli', ['--offline', 'connection', 'modify', 'connection.autoconnect-retries', '-1'], {
          input: file.contents,
          encoding: 'utf8',
        });
        expect(result.status, `${file.name}: ${result.stderr}`).toBe(0);
        const readBack = parseIni(result.stdout);
        for (const [section, keys] of parseIni(file.contents)) {
          for (const [key, value] of keys) {
            // NetworkManager leaves out values equal to its defaults.
            if (section === 'connection' && key === 'autoconnect' && value === 'true') continue;
            expect(readBack.get(section)?.get(key), `${file.name} [${section}] ${key}`).toBe(value);
          }
        }
      }
    }
  });
});

describe('nmstate errors name the field', () => {
  const iface = (extra: string) => `interfaces:\n  - {name: eth0, type: ethernet${extra}}\n`;
  it.each([
    ['bad YAML', 'interfaces: [', /^not valid YAML/],
    ['not a mapping', '- eth0', /must be a mapping with an "interfaces" list/],
    ['no interfaces', 'interfaces: []', /^interfaces must list at least one interface/],
    [
      'unsupported type',
      'interfaces: [{name: br0, type: linux-bridge}]',
      /^interfaces\[0\]\.type "linux-bridge" is not supported; supported types: ethernet, bond, vlan/,
    ],
    [
      'unsupported interface key',
      iface(', ethtool: {feature: {rx-checksum: false}}'),
      /^interfaces\[0\]\.ethtool is not supported; supported keys of an interface: name, type/,
    ],
    [
      'unsupported top-level key',
      `${iface('')}route-rules: {config: []}`,
      /^route-rules is not supported; supported keys of an nmstate document: interfaces, dns-resolver, routes/,
    ],
    ['unsupported ip key', iface(', ipv4: {dhcp: true, dhcp-client-id: mac}'), /^interfaces\[0\]\.ipv4\.dhcp-client-id is not supported/],
    [
      'bad IPv4 prefix',
      iface(', ipv4: {enabled: true, address: [{ip: 192.0.2.1, prefix-length: 33}]}'),
      /^interfaces\[0\]\.ipv4\.address\[0\]\.prefix-length must be 0–32/,
    ],
    [
      'bad IPv6 prefix',
      iface(', ipv6: {enabled: true, address: [{ip: "fd00::1", prefix-length: 129}]}'),
      /^interfaces\[0\]\.ipv6\.address\[0\]\.prefix-length must be 0–128/,
    ],
    [
      'bad IP',
      iface(', ipv4: {enabled: true, address: [{ip: 192.0.2.300, prefix-length: 24}]}'),
      /^interfaces\[0\]\.ipv4\.address\[0\]\.ip "192\.0\.2\.300" is not an IPv4 address/,
    ],
    [
      'IPv6 address under ipv4',
      iface(', ipv4: {enabled: true, address: [{ip: "fd00::1", prefix-length: 64}]}'),
      /ipv4\.address\[0\]\.ip "fd00::1" is not an IPv4 address/,
    ],
    ['manual IPv4 without addresses', iface(', ipv4: {enabled: true}'), /^interfaces\[0\]\.ipv4 is enabled but has neither dhcp: true nor an address/],
    ['SLAAC without DHCPv6', iface(', ipv6: {enabled: true, autoconf: true}'), /^interfaces\[0\]\.ipv6\.autoconf requires dhcp: true/],
    ['missing name', 'interfaces: [{type: ethernet}]', /^interfaces\[0\]\.name must be a non-empty string/],
    ['name too long', 'interfaces: [{name: abcdefghijklmnop, type: ethernet}]', /^interfaces\[0\]\.name "abcdefghijklmnop" must be 1–15/],
    ['duplicate interface', `${iface('')}  - {name: eth0, type: ethernet}`, /^interfaces\[1\]\.name "eth0" is already declared by interfaces\[0\]/],
    ['bad MAC', iface(', mac-address: "52:54:00"'), /^interfaces\[0\]\.mac-address "52:54:00" is not a MAC address/],
    ['MTU out of range', iface(', mtu: 70000'), /^interfaces\[0\]\.mtu must be 68–65535/],
    ['bond section on ethernet', iface(', link-aggregation: {mode: balance-rr}'), /^interfaces\[0\]\.link-aggregation is only supported on bond interfaces/],
    [
      'bad bond mode',
      `${iface('')}  - {name: bond0, type: bond, link-aggregation: {mode: fastest, port: [eth0]}}`,
      /^interfaces\[1\]\.link-aggregation\.mode "fastest" is not one of/,
    ],
    [
      'unknown bond option',
      `${iface('')}  - {name: bond0, type: bond, link-aggregation: {mode: balance-rr, options: {arp_interval: 1}}}`,
      /link-aggregation\.options\.arp_interval is not supported; supported keys of bond options: miimon/,
    ],
    [
      'port referencing an unknown interface',
      `${iface('')}  - {name: bond0, type: bond, link-aggregation: {mode: balance-rr, port: [eth0, eth9]}}`,
      /^interfaces\[1\]\.link-aggregation\.port\[1\] "eth9" is not an interface of this document/,
    ],
    [
      'port with an address',
      `${iface(', ipv4: {dhcp: true}')}  - {name: bond0, type: bond, link-aggregation: {mode: balance-rr, port: [eth0]}}`,
      /port\[0\] "eth0" has IP enabled/,
    ],
    [
      'port of two bonds',
      `${iface('')}  - {name: bond0, type: bond, link-aggregation: {mode: balance-rr, port: [eth0]}}\n  - {name: bond1, type: bond, link-aggregation: {mode: balance-rr, port: [eth0]}}`,
      /^interfaces\[2\]\.link-aggregation\.port\[0\] "eth0" is already a port of bond0/,
    ],
    ['vlan base missing', `${iface('')}  - {name: eth0.5, type: vlan, vlan: {id: 5}}`, /^interfaces\[1\]\.vlan\.base-iface is missing/],
    [
      'vlan base unknown',
      `${iface('')}  - {name: eth1.5, type: vlan, vlan: {base-iface: eth1, id: 5}}`,
      /^interfaces\[1\]\.vlan\.base-iface "eth1" is not an interface of this document/,
    ],
    ['vlan id out of range', `${iface('')}  - {name: eth0.5, type: vlan, vlan: {base-iface: eth0, id: 5000}}`, /^interfaces\[1\]\.vlan\.id must be 0–4094/],
    [
      'route via an unknown interface',
      `${ETH0_STATIC4}    - {destination: 10.0.0.0/8, next-hop-interface: eth7}`,
      /^routes\.config\[1\]\.next-hop-interface "eth7" is not an interface of this document/,
    ],
    [
      'route with host bits',
      `${ETH0_STATIC4}    - {destination: 10.0.0.1/8, next-hop-interface: eth0}`,
      /^routes\.config\[1\]\.destination "10\.0\.0\.1\/8" has host bits set/,
    ],
    [
      'route next hop of the other family',
      `${ETH0_STATIC4}    - {destination: 10.0.0.0/8, next-hop-address: "fd00::1", next-hop-interface: eth0}`,
      /^routes\.config\[1\]\.next-hop-address "fd00::1" is not an IPv4 address/,
    ],
    [
      'IPv6 route on an IPv4-only interface',
      `${ETH0_STATIC4}    - {destination: "fd00::/8", next-hop-interface: eth0}`,
      /^routes\.config\[1\]\.next-hop-interface "eth0" does not have IPv6 enabled/,
    ],
    [
      'DNS server not an IP',
      `${ETH0_STATIC4}dns-resolver: {config: {server: [dns.example]}}`,
      /^dns-resolver\.config\.server\[0\] "dns\.example" is not an IP address/,
    ],
    [
      'IPv6 DNS without IPv6',
      `${ETH0_STATIC4}dns-resolver: {config: {server: ["fd00::53"]}}`,
      /^dns-resolver\.config\.server\[0\] "fd00::53" is IPv6 but no interface has IPv6 enabled/,
    ],
  ])('%s', (_name, yaml, message) => {
    let caught: unknown;
    try {
      parseNmstate(yaml);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StaticNetworkError);
    expect((caught as Error).message).toMatch(message);
  });
});

const ENTRY0: StaticNetworkEntry = {
  network_yaml: BOND_VLAN,
  mac_interface_map: [
    { mac_address: '52:54:00:AA:00:02', logical_nic_name: 'eth1' },
    { mac_address: '52:54:00:aa:00:01', logical_nic_name: 'eth0' },
  ],
};
const ENTRY1: StaticNetworkEntry = {
  network_yaml: ETH0_STATIC4.replace('192.0.2.10', '192.0.2.11'),
  mac_interface_map: [{ mac_address: '52:54:00:bb:00:01', logical_nic_name: 'eth0' }],
};

describe('static_network_config entries', () => {
  it.each([
    [[{ network_yaml: 'interfaces: [', mac_interface_map: ENTRY0.mac_interface_map }], /^static_network_config\[0\]\.network_yaml: not valid YAML/],
    [
      [ENTRY0, { ...ENTRY1, network_yaml: 'interfaces: [{name: br0, type: ovs-bridge}]' }],
      /^static_network_config\[1\]\.network_yaml: interfaces\[0\]\.type "ovs-bridge" is not supported/,
    ],
    [[{ ...ENTRY0, mac_interface_map: [] }], /^static_network_config\[0\]\.mac_interface_map must map at least one MAC/],
    [
      [{ ...ENTRY0, mac_interface_map: [{ mac_address: 'zz', logical_nic_name: 'eth0' }] }],
      /^static_network_config\[0\]\.mac_interface_map\[0\]\.mac_address "zz" is not a MAC address/,
    ],
    [[{ ...ENTRY0, mac_interface_map: [{ mac_address: '52:54:00:aa:00:01' }] }], /mac_interface_map\[0\]\.logical_nic_name "" must be 1–15/],
    [
      [
        {
          ...ENTRY0,
          mac_interface_map: [
            { mac_address: '52:54:00:aa:00:01', logical_nic_name: 'eth0' },
            { mac_address: '52:54:00:aa:00:02', logical_nic_name: 'eth0' },
          ],
        },
      ],
      /mac_interface_map\[1\]\.logical_nic_name "eth0" is mapped more than once/,
    ],
    [
      [ENTRY0, { ...ENTRY1, mac_interface_map: [{ mac_address: '52:54:00:AA:00:01', logical_nic_name: 'eth0' }] }],
      /^static_network_config\[1\]\.mac_interface_map\[0\]\.mac_address 52:54:00:AA:00:01 is already mapped by static_network_config\[0\]/,
    ],
    [
      [{ ...ENTRY0, mac_interface_map: [{ mac_address: '52:54:00:aa:00:01', logical_nic_name: 'bond0' }] }],
      /logical_nic_name "bond0" is a bond in network_yaml/,
    ],
    [
      [
        {
          network_yaml: 'interfaces: [{name: eth0, type: ethernet, mac-address: "52:54:00:00:00:01"}]',
          mac_interface_map: [{ mac_address: '52:54:00:00:00:02', logical_nic_name: 'eth0' }],
        },
      ],
      /contradicts the mac-address 52:54:00:00:00:01/,
    ],
  ] as [StaticNetworkEntry[], RegExp][])('refuses %#', (entries, message) => {
    expect(staticNetworkConfigProblem(entries)).toMatch(message);
    expect(() => staticNetworkFiles(entries)).toThrow(StaticNetworkError);
  });

  it('accepts good entries and lays out the image files as upstream', () => {
    expect(staticNetworkConfigProblem([ENTRY0, ENTRY1])).toBeUndefined();
    const files = staticNetworkFiles([ENTRY0, ENTRY1]);
    expect(files.map((file) => [file.path, file.mode])).toEqual([
      [`${STATIC_NETWORK_DIR}/host0/eth0.nmconnection`, 0o600],
      [`${STATIC_NETWORK_DIR}/host0/eth1.nmconnection`, 0o600],
      [`${STATIC_NETWORK_DIR}/host0/bond0.nmconnection`, 0o600],
      [`${STATIC_NETWORK_DIR}/host0/bond0.300.nmconnection`, 0o600],
      [`${STATIC_NETWORK_DIR}/host0/mac_interface.ini`, 0o600],
      [`${STATIC_NETWORK_DIR}/host1/eth0.nmconnection`, 0o600],
      [`${STATIC_NETWORK_DIR}/host1/mac_interface.ini`, 0o600],
      ['/usr/local/bin/pre-network-manager-config.sh', 0o755],
    ]);
    expect(files[4]!.contents).toBe('52:54:00:aa:00:01=eth0\n52:54:00:aa:00:02=eth1\n');
    expect(files[7]!.contents).toBe(PRE_NETWORK_SCRIPT);
    expect(staticNetworkFiles([])).toEqual([]);
  });
});

describe('pre-network-manager-config.sh', () => {
  it('is valid POSIX sh', () => {
    expect(spawnSync('sh', ['-n'], { input: PRE_NETWORK_SCRIPT }).status).toBe(0);
    expect(PRE_NETWORK_SCRIPT.startsWith('#!/bin/sh\n')).toBe(true);
  });

  it.runIf(has('shellcheck'))('passes shellcheck', () => {
    const result = spawnSync('shellcheck', ['-s', 'sh', '-'], { input: PRE_NETWORK_SCRIPT, encoding: 'utf8' });
    expect(result.stdout).toBe('');
    expect(result.status).toBe(0);
  });

  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** Stages the image files and a fake /sys/class/net in a temp root, runs the script, returns the installed profiles. */
  function boot(shell: string, entries: StaticNetworkEntry[], nics: Record<string, string>, existing: Record<string, string> = {}) {
    const root = mkdtempSync(join(tmpdir(), 'static-network-'));
    roots.push(root);
    for (const file of staticNetworkFiles(entries)) {
      const path = file.path === PRE_NETWORK_SCRIPT_PATH ? join(root, 'script.sh') : join(root, 'config', file.path.slice(STATIC_NETWORK_DIR.length));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.contents);
      chmodSync(path, file.mode);
    }
    for (const [nic, mac] of Object.entries({ lo: '00:00:00:00:00:00', ...nics })) {
      mkdirSync(join(root, 'sys', nic), { recursive: true });
      writeFileSync(join(root, 'sys', nic, 'address'), `${mac}\n`);
    }
    mkdirSync(join(root, 'nm'));
    for (const [name, contents] of Object.entries(existing)) writeFileSync(join(root, 'nm', name), contents);
    const env = { PATH: process.env.PATH, SYSFS_NET: join(root, 'sys'), CONFIG_DIR: join(root, 'config'), NM_DIR: join(root, 'nm'), SETTLE_SECONDS: '0' };
    const log = execFileSync(shell, [join(root, 'script.sh')], { env, encoding: 'utf8' });
    const installed = Object.fromEntries(readdirSync(join(root, 'nm')).map((name) => [name, readFileSync(join(root, 'nm', name), 'utf8')]));
    const modes = readdirSync(join(root, 'nm')).map((name) => statSync(join(root, 'nm', name)).mode & 0o777);
    return { installed, modes, log, root };
  }

  describe.each(['sh', 'bash'].filter(has))('run by %s against a fake sysfs', (shell) => {
    it('installs only the entry whose MACs are here, under the real NIC names', () => {
      const { installed, modes } = boot(
        shell,
        [ENTRY0, ENTRY1],
        { enp2s0: '52:54:00:aa:00:01', enp1s0: '52:54:00:AA:00:02', enp3s0: '52:54:00:bb:00:99' },
        { 'default.nmconnection': 'x' },
      );
      expect(Object.keys(installed).sort()).toEqual(['bond0.300.nmconnection', 'bond0.nmconnection', 'enp1s0.nmconnection', 'enp2s0.nmconnection']);
      expect(modes.every((mode) => mode === 0o600)).toBe(true);
      const enp2s0 = parseIni(installed['enp2s0.nmconnection']!);
      expect(Object.fromEntries(enp2s0.get('connection')!)).toMatchObject({ id: 'enp2s0', 'interface-name': 'enp2s0', master: connectionUuid(0, 'bond0') });
      expect(enp2s0.get('ethernet')?.get('mac-address')).toBe('52:54:00:AA:00:01');
      expect(parseIni(installed['enp1s0.nmconnection']!).get('connection')?.get('interface-name')).toBe('enp1s0');
      expect(installed['bond0.300.nmconnection']).toBe(nmKeyfiles(parseNmstate(BOND_VLAN), {}, 0)[3]!.contents);
    });

    it('renames swapped names without renaming twice, and vlans on top', () => {
      const yaml = `interfaces:
  - {name: eth0, type: ethernet, ipv4: {dhcp: true}}
  - {name: eth1, type: ethernet, ipv4: {dhcp: true}}
  - {name: eth1.20, type: vlan, vlan: {base-iface: eth1, id: 20}, ipv4: {dhcp: true}}`;
      const entry = {
        network_yaml: yaml,
        mac_interface_map: [
          { mac_address: '02:00:00:00:00:01', logical_nic_name: 'eth0' },
          { mac_address: '02:00:00:00:00:02', logical_nic_name: 'eth1' },
        ],
      };
      const { installed } = boot(shell, [entry], { eth1: '02:00:00:00:00:01', eth0: '02:00:00:00:00:02' });
      expect(Object.keys(installed).sort()).toEqual(['eth0.20.nmconnection', 'eth0.nmconnection', 'eth1.nmconnection']);
      const eth0 = parseIni(installed['eth0.nmconnection']!);
      const eth1 = parseIni(installed['eth1.nmconnection']!);
      expect([eth1.get('connection')?.get('interface-name'), eth1.get('ethernet')?.get('mac-address')]).toEqual(['eth1', '02:00:00:00:00:01']);
      expect([eth0.get('connection')?.get('interface-name'), eth0.get('ethernet')?.get('mac-address')]).toEqual(['eth0', '02:00:00:00:00:02']);
      const vlan = parseIni(installed['eth0.20.nmconnection']!);
      expect([vlan.get('connection')?.get('interface-name'), vlan.get('vlan')?.get('parent')]).toEqual(['eth0.20', 'eth0']);
    });

    // enp94s0f0np0.2507 is 17 characters: the NIC part is cut so that the whole name is 15 (IFNAMSIZ - 1).
    it('shortens a vlan name that the real NIC name pushes past 15 characters', () => {
      const yaml = `interfaces:
  - {name: eth0, type: ethernet}
  - {name: eth0.2507, type: vlan, vlan: {base-iface: eth0, id: 2507}, ipv4: {dhcp: true}}`;
      const { installed } = boot(shell, [{ network_yaml: yaml, mac_interface_map: [{ mac_address: '02:00:00:00:00:01', logical_nic_name: 'eth0' }] }], {
        enp94s0f0np0: '02:00:00:00:00:01',
      });
      const vlan = parseIni(installed['enp94s0f0n.2507.nmconnection']!);
      expect([vlan.get('connection')?.get('interface-name'), vlan.get('connection')?.get('id'), vlan.get('vlan')?.get('parent')]).toEqual([
        'enp94s0f0n.2507',
        'enp94s0f0n.2507',
        'enp94s0f0np0',
      ]);
      expect(installed['enp94s0f0np0.nmconnection']).toBeDefined();
    });

    it('leaves NetworkManager alone when no entry matches, and succeeds without a config dir', () => {
      const { installed, log, root } = boot(shell, [ENTRY1], { enp1s0: '52:54:00:cc:00:01' }, { 'default.nmconnection': 'x' });
      expect(installed).toEqual({ 'default.nmconnection': 'x' });
      expect(log).toMatch(/no host directory matches/);
      rmSync(join(root, 'config'), { recursive: true });
      const env = { PATH: process.env.PATH, CONFIG_DIR: join(root, 'config'), NM_DIR: join(root, 'nm'), SETTLE_SECONDS: '0' };
      expect(spawnSync(shell, [join(root, 'script.sh')], { env }).status).toBe(0);
      expect(existsSync(join(root, 'nm', 'default.nmconnection'))).toBe(true);
    });
  });
});
