/**
 * iPXE scripts for an infra-env, as upstream serves them from
 * `downloads/files?file_name=ipxe-script`: a boot script that loads the discovery kernel, the
 * infra-env's initrd (discovery ignition inside) and the live rootfs from the image service; and,
 * for `boot-order-control`, a script that chains back to us with the booting NIC's MAC so a host
 * that is already installed can be sent to its disk instead. Pure.
 */
import type { Host } from '../core/entities.js';
import { hostInventory } from '../host/inventory.js';
import { badRequest } from '../core/errors.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

export const IPXE_SCRIPT_TYPES = ['discovery-image-always', 'boot-order-control'] as const;
export type IpxeScriptType = (typeof IPXE_SCRIPT_TYPES)[number];

/** Kernel arguments every discovery PXE boot gets (upstream's, unchanged). */
const BASE_KERNEL_ARGUMENTS = [
  'random.trust_cpu=on',
  'rd.luks.options=discard',
  'ignition.firstboot',
  'ignition.platform.id=metal',
  'console=tty1',
  'console=ttyS1,115200n8',
  'coreos.inst.persistent-kargs="console=tty1 console=ttyS1,115200n8"',
];

/** Query strings sorted by name, as Go's url.Values encodes them, so our URLs read as upstream's. */
function withQuery(base: string, params: Record<string, string>): string {
  const query = new URLSearchParams(
    Object.entries(params)
      .filter(([, value]) => value !== '')
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return `${base}?${query}`;
}

/** Boot artifact URLs on the image service; only the initrd is per infra-env, hence signed. */
export function bootArtifactUrls(input: {
  imageServiceBaseUrl: string;
  infraEnvId: string;
  openshiftVersion: string;
  cpuArchitecture: string;
  imageToken: string;
}) {
  const common = { arch: input.cpuArchitecture, version: input.openshiftVersion };
  return {
    kernel: withQuery(`${input.imageServiceBaseUrl}/boot-artifacts/kernel`, common),
    rootfs: withQuery(`${input.imageServiceBaseUrl}/boot-artifacts/rootfs`, common),
    initrd: withQuery(`${input.imageServiceBaseUrl}/images/${input.infraEnvId}/pxe-initrd`, { ...common, image_token: input.imageToken }),
  };
}

/** The infra-env's `kernel_arguments` (JSON text); a PXE boot can only append to the kernel command line. */
export function appendedKernelArguments(kernelArguments: unknown): string[] {
  if (typeof kernelArguments !== 'string' || kernelArguments === '') return [];
  const parsed: unknown = JSON.parse(kernelArguments);
  return (Array.isArray(parsed) ? parsed : []).map((argument: unknown) => {
    const { operation, value } = isJsonObject(argument) ? argument : {};
    if (operation !== 'append') {
      throw badRequest(
        `kernel_arguments: an iPXE boot can only append kernel arguments, not ${String(operation ?? '(no operation)')} "${String(value ?? '')}"`,
      );
    }
    return String(value ?? '');
  });
}

export function ipxeBootScript(input: {
  imageServiceBaseUrl: string;
  infraEnvId: string;
  openshiftVersion: string;
  cpuArchitecture: string;
  imageToken: string;
  kernelArguments?: unknown;
}): string {
  const urls = bootArtifactUrls(input);
  const kernelArguments = [
    'initrd=initrd',
    `coreos.live.rootfs_url=${urls.rootfs}`,
    ...BASE_KERNEL_ARGUMENTS,
    ...appendedKernelArguments(input.kernelArguments),
  ];
  return ['#!ipxe', `initrd --name initrd ${urls.initrd}`, `kernel ${urls.kernel} ${kernelArguments.join(' ')}`, 'boot', ''].join('\n');
}

/**
 * The boot-order-control script: iPXE fetches the host's own script again, telling us its MAC
 * (`${net0/mac}` is expanded by iPXE, not by us). The URL carries an image token because the
 * firmware can send no header.
 */
export function ipxeRedirectScript(input: { serviceBaseUrl: string; infraEnvId: string; imageToken: string }): string {
  const url = withQuery(`${input.serviceBaseUrl}/api/assisted-install/v2/infra-envs/${input.infraEnvId}/downloads/files`, {
    file_name: 'ipxe-script',
    image_token: input.imageToken,
  });
  return `#!ipxe\nchain ${url}&mac=\${net0/mac}\n`;
}

const normalizeMac = (mac: string) => mac.trim().toLowerCase().replace(/-/g, ':');

/** Hosts whose inventory lists a NIC with this MAC. */
export function hostsWithMac(hosts: Host[], mac: string): Host[] {
  const wanted = normalizeMac(mac);
  return hosts.filter((host) =>
    (hostInventory(host)?.interfaces ?? []).some((nic) => typeof nic.mac_address === 'string' && normalizeMac(nic.mac_address) === wanted),
  );
}

/** Installation stages after which the host must boot from its disk, not from the network again. */
const STAGES_PAST_DISK_WRITE = new Set(['Done', 'Configuring', 'Joined', 'Rebooting', 'Waiting for ignition']);

/**
 * Why a host must not get the discovery boot script (upstream answers 404 so the firmware
 * falls through to the next boot device, the installed disk), or undefined when it may.
 */
export function ipxeBootRefusal(host: Host): string | undefined {
  if (host.status === 'installed') return `host ${host.hostId} is already installed; it boots from its disk`;
  if (host.status === 'installing-in-progress') {
    const stage = host.attributes.progress?.current_stage;
    if (stage && STAGES_PAST_DISK_WRITE.has(stage)) return `host ${host.hostId} is at installation stage "${stage}"; it boots from its disk`;
  }
  return undefined;
}
