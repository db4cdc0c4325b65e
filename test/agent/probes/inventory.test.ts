import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepContext } from '../../../agent/src/contracts.js';
import { runCommand } from '../../../agent/src/exec.js';
import { collectInventory } from '../../../agent/src/inventory/index.js';
import { REASON_ISO, REASON_LVM, mountedReason } from '../../../agent/src/inventory/disks.js';
import { createProbeSteps } from '../../../agent/src/steps/index.js';
import { applyStepReply } from '../../../lambdas/domain/agent/step-replies.js';
import type { Host } from '../../../lambdas/domain/core/entities.js';
import { readInventory } from '../../../lambdas/domain/host/validations/host-validations-model.js';
import { hostInventory } from '../../../lambdas/domain/host/inventory.js';
import { exited, fixture, FIXTURES, nothingInstalled, ok, recordingLog, scriptedRunner } from './fixtures.js';
import { modelViolations } from '../../support/response-schema.js';

interface Disk {
  name: string;
  id: string;
  by_id?: string;
  by_path?: string;
  drive_type: string;
  bootable: boolean;
  removable: boolean;
  hctl?: string;
  vendor?: string;
  is_installation_media: boolean;
  installation_eligibility: { eligible: boolean; not_eligible_reasons: string[] };
}
interface Nic {
  name: string;
  mac_address: string;
  type: string;
  ipv4_addresses: string[];
  ipv6_addresses: string[];
  has_carrier: boolean;
  speed_mbps: number;
  mtu: number;
  vendor?: string;
  flags: string[];
}

let root: string;

async function put(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}
async function link(path: string, target: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await symlink(target, join(root, path));
}

/** A Dell-like server with an SSD (EFI + LVM root), HDD, ISO stick, DVD, NVMe, bond, VLAN, GPUs and a TPM. */
async function buildServerTree(): Promise<void> {
  await put('/proc/meminfo', 'MemTotal:       65536000 kB\nMemFree:        60000000 kB\n');
  await put(
    '/proc/cpuinfo',
    'processor\t: 0\nmodel name\t: Fallback CPU\ncpu MHz\t\t: 2100.000\nflags\t\t: fp asimd hypervisor\n\nprocessor\t: 1\nmodel name\t: Fallback CPU\n',
  );
  await put('/proc/cmdline', 'BOOT_IMAGE=/images/pxeboot/vmlinuz coreos.liveiso=rhcos BOOTIF=01-b8-ce-f6-12-34-56 ip=dhcp\n');
  await put('/proc/sys/kernel/hostname', 'localhost\n');
  await put('/proc/mounts', '/dev/sda1 /boot/efi vfat rw 0 0\n/dev/sdc1 /run/media/iso iso9660 ro 0 0\n/dev/mapper/rhel-root / xfs rw 0 0\n');
  await put('/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c', new Uint8Array([6, 0, 0, 0, 1]));
  for (const [field, value] of Object.entries({
    sys_vendor: 'Dell Inc.',
    product_name: 'PowerEdge R640',
    product_serial: 'ABC1234',
    product_family: 'PowerEdge',
    chassis_asset_tag: '',
  })) {
    await put(`/sys/class/dmi/id/${field}`, `${value}\n`);
  }
  await put('/sys/class/tpm/tpm0/tpm_version_major', '2\n');

  const blocks: Record<string, { sectors: number; removable: string; rotational: string; vendor?: string; model?: string; hctl?: string }> = {
    sda: { sectors: 937703088, removable: '0', rotational: '0', vendor: 'ATA     ', model: 'Samsung SSD 860', hctl: '0:0:0:0' },
    sdb: { sectors: 3907029168, removable: '0', rotational: '1', vendor: 'ATA     ', model: 'ST2000NM0008', hctl: '1:0:0:0' },
    sdc: { sectors: 31129600, removable: '1', rotational: '1', vendor: 'SanDisk ', model: 'Cruzer Blade', hctl: '6:0:0:0' },
    sr0: { sectors: 2252800, removable: '1', rotational: '1', vendor: 'QEMU    ', model: 'QEMU DVD-ROM', hctl: '2:0:0:0' },
    nvme0n1: { sectors: 1875385008, removable: '0', rotational: '0' },
    loop0: { sectors: 1767432, removable: '0', rotational: '0' },
    'dm-0': { sectors: 146800640, removable: '0', rotational: '0' },
    'dm-1': { sectors: 16777216, removable: '0', rotational: '0' },
  };
  for (const [name, block] of Object.entries(blocks)) {
    await put(`/sys/block/${name}/size`, `${block.sectors}\n`);
    await put(`/sys/block/${name}/removable`, `${block.removable}\n`);
    await put(`/sys/block/${name}/queue/rotational`, `${block.rotational}\n`);
    if (block.vendor) await put(`/sys/block/${name}/device/vendor`, `${block.vendor}\n`);
    if (block.model) await put(`/sys/block/${name}/device/model`, `${block.model}\n`);
    if (block.hctl) await mkdir(join(root, `/sys/block/${name}/device/scsi_device/${block.hctl}`), { recursive: true });
  }
  await put('/sys/block/nvme0n1/device/model', 'SAMSUNG MZQL2960HCJR-00A07\n');
  await put('/sys/block/dm-0/dm/uuid', 'LVM-Xq1V0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrst\n');
  await put('/sys/block/dm-1/dm/uuid', 'LVM-Xq1V0aBcDeFgHiJkLmNoPqRsTuVwXyZ0987654321abcdefghijklmnopqrst\n');
  await mkdir(join(root, '/sys/block/sda/holders'), { recursive: true });

  for (const [entry, target] of Object.entries({
    'wwn-0x5002538e40a1b2c3': 'sda',
    'ata-Samsung_SSD_860_S4EVNF0M123456': 'sda',
    'wwn-0x5002538e40a1b2c3-part1': 'sda1',
    'wwn-0x5000c500a1b2c3d4': 'sdb',
    'nvme-eui.0025388b91b4a1c2': 'nvme0n1',
    'usb-SanDisk_Cruzer_Blade_4C530001230815117392-0:0': 'sdc',
  })) {
    await link(`/dev/disk/by-id/${entry}`, `../../${target}`);
  }
  for (const [entry, target] of Object.entries({
    'pci-0000:00:17.0-ata-1': 'sda',
    'pci-0000:00:17.0-ata-1.0': 'sda',
    'pci-0000:00:17.0-ata-1-part1': 'sda1',
    'pci-0000:00:17.0-ata-2': 'sdb',
    'pci-0000:3b:00.0-nvme-1': 'nvme0n1',
    'pci-0000:00:14.0-usb-0:1:1.0-scsi-0:0:0:0': 'sdc',
  })) {
    await link(`/dev/disk/by-path/${entry}`, `../../${target}`);
  }
  const sector = new Uint8Array(512);
  sector[510] = 0x55;
  sector[511] = 0xaa;
  await put('/dev/sda', sector);
  await put('/dev/sdb', new Uint8Array(512));

  const nics: Record<string, { device: string; mac: string; mtu: number; carrier: string; speed?: string; flags: string; vendor?: string; product?: string }> =
    {
      lo: { device: 'virtual/net/lo', mac: '00:00:00:00:00:00', mtu: 65536, carrier: '1', flags: '0x9' },
      eno1: {
        device: 'pci0000:00/0000:00:1f.6/net/eno1',
        mac: 'b8:ce:f6:12:34:56',
        mtu: 9000,
        carrier: '1',
        speed: '10000',
        flags: '0x1003',
        vendor: '0x8086',
        product: '0x1572',
      },
      eno2: {
        device: 'pci0000:00/0000:00:1f.7/net/eno2',
        mac: 'b8:ce:f6:12:34:58',
        mtu: 1500,
        carrier: '1',
        speed: '10000',
        flags: '0x1803',
        vendor: '0x8086',
        product: '0x1572',
      },
      ens3f0: { device: 'pci0000:3a/0000:3a:00.0/net/ens3f0', mac: '3c:fd:fe:00:11:22', mtu: 1500, carrier: '0', flags: '0x1003' },
      bond0: { device: 'virtual/net/bond0', mac: 'b8:ce:f6:12:34:58', mtu: 1500, carrier: '1', flags: '0x1403' },
      'bond0.100': { device: 'virtual/net/bond0.100', mac: 'b8:ce:f6:12:34:58', mtu: 1500, carrier: '1', flags: '0x1003' },
      virbr0: { device: 'virtual/net/virbr0', mac: '52:54:00:aa:bb:cc', mtu: 1500, carrier: '0', flags: '0x1003' },
    };
  let index = 1;
  for (const [name, nic] of Object.entries(nics)) {
    const base = `/sys/devices/${nic.device}`;
    await put(`${base}/address`, `${nic.mac}\n`);
    await put(`${base}/mtu`, `${nic.mtu}\n`);
    await put(`${base}/carrier`, `${nic.carrier}\n`);
    await put(`${base}/flags`, `${nic.flags}\n`);
    await put(`${base}/ifindex`, `${index++}\n`);
    await put(`${base}/operstate`, nic.carrier === '1' ? 'up\n' : 'down\n');
    if (nic.speed) await put(`${base}/speed`, `${nic.speed}\n`);
    if (nic.vendor) await put(`${base}/device/vendor`, `${nic.vendor}\n`);
    if (nic.product) await put(`${base}/device/device`, `${nic.product}\n`);
    await link(`/sys/class/net/${name}`, `../../devices/${nic.device}`);
  }
  await mkdir(join(root, '/sys/devices/virtual/net/bond0/bonding'), { recursive: true });
  await put('/proc/net/vlan/config', 'VLAN Dev name    | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\nbond0.100      | 100  | bond0\n');
  await put('/proc/net/if_inet6', 'fd2e6f445dd8c9560000000000000014 02 80 00 80     eno1\nfe80000000000000bacef6fffe123456 02 40 20 80     eno1\n');

  for (const [address, ids] of Object.entries({
    '0000:00:02.0': ['0x030000', '0x1a03', '0x2000'],
    '0000:3b:00.0': ['0x030200', '0x10de', '0x1eb8'],
    '0000:af:00.0': ['0x120000', '0x1da3', '0x1020'],
    '0000:00:1f.6': ['0x020000', '0x8086', '0x1572'],
  })) {
    await put(`/sys/bus/pci/devices/${address}/class`, `${ids[0]}\n`);
    await put(`/sys/bus/pci/devices/${address}/vendor`, `${ids[1]}\n`);
    await put(`/sys/bus/pci/devices/${address}/device`, `${ids[2]}\n`);
  }
  await put('/usr/share/hwdata/pci.ids', fixture('pci.ids'));
}

const serverTools = () =>
  scriptedRunner({
    lsblk: ok(fixture('lsblk-baremetal.json')),
    'ip -j -d addr show': ok(fixture('ip-addr-baremetal.json')),
    'ip -j -4 route show table main': ok(fixture('ip-route4-baremetal.json')),
    'ip -j -6 route show table main': ok(fixture('ip-route6-baremetal.json')),
    'lscpu -J': ok(fixture('lscpu-aarch64-nested.json')),
    'dmidecode -t 17': ok(fixture('dmidecode-t17.txt')),
    'systemd-detect-virt --vm': exited(1, 'none\n'),
    findmnt: ok('/dev/loop0\n'),
  });

/** What the service stores from an inventory reply, read back the two ways the service reads it. */
function throughService(inventory: Record<string, unknown>) {
  const host: Host = {
    orgId: 'org',
    infraEnvId: 'infra',
    hostId: '4f0e3a1c-2b5d-4e6f-8a9b-0c1d2e3f4a5b',
    status: 'discovering',
    createdAt: 'then',
    updatedAt: 'then',
    version: 1,
    attributes: {},
  };
  const stored = applyStepReply(
    host,
    { step_type: 'inventory', step_id: 'inventory-1', output: JSON.stringify(inventory) },
    { now: 'now', disks: { cluster: { attributes: { openshift_version: '4.18.52' } } } },
  );
  if (!stored) throw new Error('the service changed nothing on an inventory reply');
  return { lenient: hostInventory(stored), strict: readInventory(stored.attributes), stored };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-inventory-tree-'));
  await buildServerTree();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('collectInventory on a fake server tree', () => {
  it("reports every part in upstream's shape, accepted by the schema and the service", async () => {
    const log = recordingLog();
    const inventory = await collectInventory({ exec: serverTools(), log, root });
    expect(modelViolations('inventory', inventory)).toEqual([]);
    expect(inventory).toMatchObject({
      bmc_address: '0.0.0.0',
      bmc_v6address: '::/0',
      boot: { current_boot_mode: 'uefi', secure_boot_state: 'Enabled', pxe_interface: '01-b8-ce-f6-12-34-56', device_type: 'ephemeral' },
      cpu: { architecture: 'aarch64', model_name: 'Neoverse-N1', count: 80, frequency: 3000 },
      memory: { physical_bytes: 64 * 1024 ** 3, usable_bytes: 65536000 * 1024, physical_bytes_method: 'dmidecode' },
      system_vendor: { manufacturer: 'Dell Inc.', product_name: 'PowerEdge R640', serial_number: 'ABC1234', virtual: false },
      tpm_version: '2.0',
      // "localhost" is forbidden: the first NIC by name that has an address lends its MAC.
      hostname: 'b8-ce-f6-12-34-58',
    });
    expect(inventory).not.toHaveProperty('timestamp');
    expect(log.warnings).toEqual([]);

    const service = throughService(inventory);
    expect(service.strict?.cpu?.architecture).toBe('aarch64');
    expect(service.lenient?.disks?.map((disk) => disk.name)).toEqual(['dm-0', 'dm-1', 'nvme0n1', 'sda', 'sdb', 'sdc', 'sr0']);
    expect(service.stored.attributes.cpu_architecture).toBe('arm64');
  });

  it("reports disks with stable names, types and the agent's eligibility reasons", async () => {
    const inventory = await collectInventory({ exec: serverTools(), log: recordingLog(), root });
    const disks = new Map((inventory.disks as Disk[]).map((disk) => [disk.name, disk]));
    expect(disks.has('loop0')).toBe(false);
    expect(disks.get('sda')).toMatchObject({
      id: '/dev/disk/by-id/wwn-0x5002538e40a1b2c3',
      by_id: '/dev/disk/by-id/wwn-0x5002538e40a1b2c3',
      by_path: '/dev/disk/by-path/pci-0000:00:17.0-ata-1',
      drive_type: 'SSD',
      hctl: '0:0:0:0',
      vendor: 'ATA',
      bootable: true,
      removable: false,
      installation_eligibility: { eligible: false, not_eligible_reasons: [mountedReason('sda1', '/boot/efi'), mountedReason('dm-0', '/')] },
    });
    expect(disks.get('sdb')).toMatchObject({ drive_type: 'HDD', bootable: false, installation_eligibility: { eligible: true, not_eligible_reasons: [] } });
    expect(disks.get('sdc')).toMatchObject({
      removable: true,
      is_installation_media: true,
      installation_eligibility: { eligible: false, not_eligible_reasons: [REASON_ISO] },
    });
    expect(disks.get('sr0')).toMatchObject({ drive_type: 'ODD', is_installation_media: true });
    expect(disks.get('nvme0n1')).toMatchObject({
      id: '/dev/disk/by-id/nvme-eui.0025388b91b4a1c2',
      drive_type: 'SSD',
      installation_eligibility: { eligible: true },
    });
    expect(disks.get('dm-0')).toMatchObject({
      drive_type: 'LVM',
      installation_eligibility: { eligible: false, not_eligible_reasons: [REASON_LVM, mountedReason('dm-0', '/')] },
    });
    // Swap is not a mount: only the LVM reason remains.
    expect(disks.get('dm-1')?.installation_eligibility.not_eligible_reasons).toEqual([REASON_LVM]);
  });

  it('reports physical NICs, bonds and VLANs (not bridges or loopback), with routes', async () => {
    const inventory = await collectInventory({ exec: serverTools(), log: recordingLog(), root });
    const nics = new Map((inventory.interfaces as Nic[]).map((nic) => [nic.name, nic]));
    expect([...nics.keys()].sort()).toEqual(['bond0', 'bond0.100', 'eno1', 'eno2', 'ens3f0']);
    expect(nics.get('eno1')).toMatchObject({
      type: 'physical',
      mac_address: 'b8:ce:f6:12:34:56',
      ipv4_addresses: ['192.168.111.20/24'],
      ipv6_addresses: ['fd2e:6f44:5dd8:c956::14/128'],
      mtu: 9000,
      speed_mbps: 10000,
      has_carrier: true,
      vendor: '0x8086',
      product: '0x1572',
      flags: ['up', 'broadcast', 'multicast', 'running'],
    });
    expect(nics.get('eno2')?.mac_address).toBe('b8:ce:f6:12:34:57');
    expect(nics.get('bond0')?.type).toBe('bond');
    expect(nics.get('bond0.100')?.type).toBe('vlan');
    expect(nics.get('ens3f0')).toMatchObject({ has_carrier: false, speed_mbps: -1 });
    expect(inventory.routes).toEqual([
      { destination: '0.0.0.0', gateway: '192.168.111.1', interface: 'eno1', family: 2, metric: 100 },
      { destination: '10.10.0.0', interface: 'bond0', family: 2, metric: 0 },
      { destination: '192.168.111.0', interface: 'eno1', family: 2, metric: 100 },
      { destination: 'fd2e:6f44:5dd8:c956::14', interface: 'eno1', family: 10, metric: 100 },
      { destination: 'fd2e:6f44:5dd8:c956::', interface: 'eno1', family: 10, metric: 100 },
      { destination: '::', gateway: 'fe80::1', interface: 'eno1', family: 10, metric: 100 },
    ]);
  });

  it('reports GPUs by the default classes, or only what a --gpu-config-file selects', async () => {
    const defaults = await collectInventory({ exec: serverTools(), log: recordingLog(), root });
    expect(defaults.gpus).toEqual([
      { address: '0000:00:02.0', vendor_id: '1a03', device_id: '2000' },
      { address: '0000:3b:00.0', vendor_id: '10de', device_id: '1eb8', vendor: 'NVIDIA Corporation', name: 'TU104GL [Tesla T4]' },
      { address: '0000:af:00.0', vendor_id: '1da3', device_id: '1020', vendor: 'Habana Labs Ltd.', name: 'Gaudi2 AI Training Accelerator' },
    ]);
    const nvidiaOnly = join(root, 'nvidia-only.yaml');
    await writeFile(nvidiaOnly, "vendors:\n  - '0300 10de'\n  - '0302 10de'\n");
    const filtered = await collectInventory({ exec: serverTools(), log: recordingLog(), root, gpuConfigFile: nvidiaOnly });
    expect((filtered.gpus as { address: string }[]).map((gpu) => gpu.address)).toEqual(['0000:3b:00.0']);
    const upstreamExample = await collectInventory({ exec: serverTools(), log: recordingLog(), root, gpuConfigFile: `${FIXTURES}gpu-config.yaml` });
    expect((upstreamExample.gpus as { address: string }[]).map((gpu) => gpu.address)).toEqual(['0000:00:02.0', '0000:3b:00.0', '0000:af:00.0']);
  });

  it('falls back to sysfs and procfs when no tool is installed, warning once per tool', async () => {
    const log = recordingLog();
    const inventory = await collectInventory({ exec: nothingInstalled, log, root });
    expect(modelViolations('inventory', inventory)).toEqual([]);
    expect(inventory).toMatchObject({
      cpu: { model_name: 'Fallback CPU', count: 2, frequency: 2100 },
      memory: { physical_bytes: 65536000 * 1024, physical_bytes_method: 'meminfo' },
      system_vendor: { manufacturer: 'Dell Inc.', virtual: true },
    });
    expect(inventory.boot).not.toHaveProperty('device_type');
    const disks = new Map((inventory.disks as Disk[]).map((disk) => [disk.name, disk]));
    expect([...disks.keys()]).toEqual(['dm-0', 'dm-1', 'nvme0n1', 'sda', 'sdb', 'sdc', 'sr0']);
    expect(disks.get('sda')?.installation_eligibility.not_eligible_reasons).toEqual([mountedReason('sda1', '/boot/efi')]);
    expect(disks.get('sdc')?.is_installation_media).toBe(true);
    const nics = new Map((inventory.interfaces as Nic[]).map((nic) => [nic.name, nic]));
    expect([...nics.keys()].sort()).toEqual(['bond0', 'bond0.100', 'eno1', 'eno2', 'ens3f0']);
    expect(nics.get('eno1')).toMatchObject({ ipv6_addresses: ['fd2e:6f44:5dd8:c956::14/128'], flags: ['up', 'broadcast', 'multicast', 'running'] });
    for (const tool of ['lsblk', 'ip', 'lscpu', 'dmidecode', 'systemd-detect-virt', 'findmnt']) {
      expect(
        log.warnings.filter((warning) => warning.startsWith(`${tool} is not installed`)),
        tool,
      ).toHaveLength(1);
    }
    throughService(inventory);
  });

  it('survives an empty root: every part degrades, nothing throws', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'agent-inventory-empty-'));
    try {
      const log = recordingLog();
      const inventory = await collectInventory({ exec: nothingInstalled, log, root: empty });
      expect(modelViolations('inventory', inventory)).toEqual([]);
      expect(inventory).toMatchObject({ disks: [], interfaces: [], gpus: [], tpm_version: 'none', boot: { current_boot_mode: 'bios' } });
      expect(log.warnings.length).toBeGreaterThan(0);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('the inventory schema check', () => {
  it('is not vacuous: it rejects what the service would misread', () => {
    expect(modelViolations('inventory', { tpm_version: '3.0' })).not.toEqual([]);
    expect(modelViolations('inventory', { disks: [{ drive_type: 'Floppy' }] })).not.toEqual([]);
    expect(modelViolations('inventory', { cpu: { count: '4' } })).not.toEqual([]);
  });
});

describe('collectInventory on this machine', () => {
  it('reads the real /proc and /sys into a valid inventory the service accepts', async () => {
    const log = recordingLog();
    const started = Date.now();
    const inventory = await collectInventory({ exec: runCommand, log });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(modelViolations('inventory', inventory)).toEqual([]);
    const cpu = inventory.cpu as { count: number; architecture: string; flags: string[] };
    expect(cpu.count).toBeGreaterThan(0);
    expect(cpu.architecture).toMatch(/^(x86_64|aarch64|s390x|ppc64le)$/);
    const memory = inventory.memory as { physical_bytes: number; usable_bytes: number };
    expect(memory.usable_bytes).toBeGreaterThan(0);
    expect(memory.physical_bytes).toBeGreaterThanOrEqual(memory.usable_bytes);
    expect(typeof inventory.hostname).toBe('string');
    expect(Array.isArray(inventory.disks)).toBe(true);
    for (const disk of inventory.disks as Disk[]) {
      expect(disk.id).toMatch(/^\/dev\//);
      expect(typeof disk.installation_eligibility.eligible).toBe('boolean');
    }
    for (const nic of inventory.interfaces as Nic[]) {
      expect(nic.mac_address).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
      for (const cidr of [...nic.ipv4_addresses, ...nic.ipv6_addresses]) expect(cidr).toMatch(/\/\d+$/);
    }
    const service = throughService(inventory);
    expect(service.strict).toBeDefined();
    expect(service.lenient?.hostname).toBe(inventory.hostname);
  });

  it('is what the inventory step replies', async () => {
    const controller = new AbortController();
    const context: StepContext = {
      hostId: 'h',
      infraEnvId: 'i',
      api: { call: () => Promise.reject(new Error('no API in this test')) },
      exec: runCommand,
      log: recordingLog(),
      signal: controller.signal,
    };
    const steps = createProbeSteps();
    const reply = await steps.inventory!({ step_type: 'inventory', step_id: 'inventory-1', args: ['4f0e3a1c-2b5d-4e6f-8a9b-0c1d2e3f4a5b'] }, context);
    expect(reply.exit_code).toBe(0);
    expect(modelViolations('inventory', JSON.parse(reply.output!))).toEqual([]);
    const refused = await steps.inventory!({ step_type: 'inventory', step_id: 'inventory-2', args: ['not-a-uuid'] }, context);
    expect(refused.exit_code).toBe(-1);
    expect(refused.error).toMatch(/UUID/);
  });
});
