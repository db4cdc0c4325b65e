/** Boot mode, system vendor, BMC, TPM and hostname. */
import { hostname as osHostname } from 'node:os';
import type { Interface } from './interfaces.js';
import type { InventoryProbe } from './probe.js';

export interface Boot {
  current_boot_mode: 'uefi' | 'bios';
  pxe_interface?: string;
  command_line?: string;
  secure_boot_state: 'Unknown' | 'NotSupported' | 'Enabled' | 'Disabled';
  device_type?: 'persistent' | 'ephemeral';
}

export interface SystemVendor {
  manufacturer?: string;
  product_name?: string;
  serial_number?: string;
  virtual: boolean;
}

const SECURE_BOOT_VARIABLE = '/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c';

export async function collectBoot(probe: InventoryProbe): Promise<Boot> {
  const uefi = await probe.files.exists('/sys/firmware/efi');
  const commandLine = (await probe.files.text('/proc/cmdline'))?.trim();
  const pxe = commandLine
    ?.split(/\s+/)
    .find((argument) => argument.startsWith('BOOTIF='))
    ?.slice('BOOTIF='.length);
  let secureBoot: Boot['secure_boot_state'] = 'NotSupported';
  if (uefi) {
    // efivarfs: 4 bytes of attributes, then the one-byte value.
    const variable = await probe.files.head(SECURE_BOOT_VARIABLE, 5);
    if (variable === undefined) secureBoot = (await probe.files.exists(SECURE_BOOT_VARIABLE)) ? 'Unknown' : 'NotSupported';
    else secureBoot = variable.length < 5 ? 'Unknown' : variable[4] === 1 ? 'Enabled' : 'Disabled';
  }
  return {
    current_boot_mode: uefi ? 'uefi' : 'bios',
    ...(pxe ? { pxe_interface: pxe } : {}),
    ...(commandLine ? { command_line: commandLine } : {}),
    secure_boot_state: secureBoot,
    ...(await deviceType(probe)),
  };
}

/** The discovery ISO runs from a loop-mounted image: that is an ephemeral boot device. */
async function deviceType(probe: InventoryProbe): Promise<Pick<Boot, 'device_type'>> {
  const result = await probe.exec('findmnt', ['--noheadings', '--output', 'SOURCE', '/sysroot'], { timeoutMs: 10_000 });
  if (result.missing) {
    probe.warnOnce('findmnt', 'findmnt is not installed; the boot device type is not reported');
    return {};
  }
  return { device_type: result.exitCode === 0 && result.stdout.trim().startsWith('/dev/loop') ? 'ephemeral' : 'persistent' };
}

/** DMI strings vendors leave unfilled. */
const PLACEHOLDERS = new Set([
  '',
  'none',
  'unknown',
  'not specified',
  'default string',
  'to be filled by o.e.m.',
  'system serial number',
  'system product name',
  'system manufacturer',
]);
const real = (value: string | undefined) => (value !== undefined && !PLACEHOLDERS.has(value.trim().toLowerCase()) ? value.trim() : undefined);

export async function collectSystemVendor(probe: InventoryProbe): Promise<SystemVendor> {
  const dmi = (field: string) => probe.files.value(`/sys/class/dmi/id/${field}`);
  let manufacturer = real(await dmi('sys_vendor'));
  let productName = real(await dmi('product_name'));
  let serial = real(await dmi('product_serial'));
  const family = await dmi('product_family');
  // oVirt/RHV guests report the hypervisor's product in product_family.
  if (family && /oVirt|RHV/i.test(family)) productName = 'oVirt';
  if ((await dmi('chassis_asset_tag')) === 'OracleCloud.com') manufacturer = 'OracleCloud.com';

  if (!manufacturer && !productName) {
    const sysinfo = await probe.files.text('/proc/sysinfo');
    if (sysinfo) {
      // s390x has no DMI; the machine describes itself in /proc/sysinfo.
      const field = (name: string) => sysinfo.match(new RegExp(`^${name}:\\s*(.+)$`, 'm'))?.[1]?.trim();
      manufacturer = field('Manufacturer');
      productName = field('Type');
      serial = field('Sequence Code');
    } else {
      const fromDmidecode = await dmidecodeStrings(probe);
      manufacturer = fromDmidecode.manufacturer;
      productName = fromDmidecode.productName;
      serial = serial ?? fromDmidecode.serial;
      if (!manufacturer && !productName)
        probe.warnOnce('dmi', 'the host exposes no DMI data (/sys/class/dmi/id) and dmidecode gave none; the system vendor is not reported');
    }
  }
  return {
    ...(manufacturer ? { manufacturer } : {}),
    ...(productName ? { product_name: productName } : {}),
    ...(serial ? { serial_number: serial } : {}),
    virtual: await isVirtual(probe),
  };
}

async function dmidecodeStrings(probe: InventoryProbe): Promise<{ manufacturer?: string; productName?: string; serial?: string }> {
  const read = async (keyword: string) =>
    real((await probe.tool('dmidecode', ['-s', keyword], 'the system vendor is read from sysfs only'))?.trim().split('\n')[0]);
  const manufacturer = await read('system-manufacturer');
  if (!manufacturer) return {};
  return { manufacturer, productName: await read('system-product-name'), serial: await read('system-serial-number') };
}

async function isVirtual(probe: InventoryProbe): Promise<boolean> {
  const result = await probe.exec('systemd-detect-virt', ['--vm'], { timeoutMs: 10_000 });
  if (!result.missing) return result.exitCode === 0 && result.stdout.trim() !== '' && result.stdout.trim() !== 'none';
  probe.warnOnce('systemd-detect-virt', 'systemd-detect-virt is not installed; virtualisation is judged from the CPU hypervisor flag');
  const cpuinfo = await probe.files.text('/proc/cpuinfo');
  return /^flags\s*:.*\bhypervisor\b/m.test(cpuinfo ?? '');
}

const BMC_CHANNELS = 12;

/** The BMC's addresses from ipmitool; upstream's "none" values otherwise. */
export async function collectBmc(probe: InventoryProbe): Promise<{ bmc_address: string; bmc_v6address: string }> {
  const none = { bmc_address: '0.0.0.0', bmc_v6address: '::/0' };
  const ipmiPresent = await probe.files.exists('/dev/ipmi0');
  let v4: string | undefined;
  let v6: string | undefined;
  for (let channel = 1; channel <= BMC_CHANNELS && !v4; channel += 1) {
    const result = await probe.exec('ipmitool', ['lan', 'print', String(channel)], { timeoutMs: 10_000 });
    if (result.missing) {
      if (ipmiPresent) probe.warnOnce('ipmitool', 'ipmitool is not installed; the BMC address is not reported');
      return none;
    }
    if (result.exitCode !== 0) {
      // Without an IPMI device every channel fails the same way; asking twelve times says nothing new.
      if (!ipmiPresent) return none;
      continue;
    }
    const address = result.stdout.match(/^IP Address\s*:\s*(\d+\.\d+\.\d+\.\d+)\s*$/m)?.[1];
    if (address && address !== '0.0.0.0') v4 = address;
    if (!v6) {
      const lan6 = await probe.exec('ipmitool', ['lan6', 'print', String(channel)], { timeoutMs: 10_000 });
      const candidate = lan6.exitCode === 0 ? lan6.stdout.match(/Address:\s*([0-9a-f:]+\/\d+)/i)?.[1] : undefined;
      if (candidate && !candidate.startsWith('::/')) v6 = candidate;
    }
  }
  return { bmc_address: v4 ?? none.bmc_address, bmc_v6address: v6 ?? none.bmc_v6address };
}

export async function collectTpmVersion(probe: InventoryProbe): Promise<'none' | '1.2' | '2.0'> {
  const major = await probe.files.value('/sys/class/tpm/tpm0/tpm_version_major');
  return major === '2' ? '2.0' : major === '1' ? '1.2' : 'none';
}

const FORBIDDEN_HOSTNAMES = new Set(['localhost', 'localhost.localdomain', 'localhost4', 'localhost4.localdomain4', 'localhost6', 'localhost6.localdomain6']);

/** The kernel's hostname; a forbidden one is replaced by the MAC of the first NIC with an address, as upstream does. */
export async function collectHostname(probe: InventoryProbe, interfaces: readonly Interface[]): Promise<string> {
  const name = (await probe.files.value('/proc/sys/kernel/hostname')) || osHostname();
  if (!FORBIDDEN_HOSTNAMES.has(name.toLowerCase())) return name;
  const nic = [...interfaces]
    .sort((a, b) => a.name.localeCompare(b.name))
    .find((candidate) => candidate.mac_address && (candidate.ipv4_addresses.length > 0 || candidate.ipv6_addresses.length > 0));
  return nic ? nic.mac_address.toLowerCase().replaceAll(':', '-') : name;
}
