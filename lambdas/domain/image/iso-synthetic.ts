/**
 * A SYNTHETIC base ISO for tests and `npm start` demos, where no RHCOS image can be downloaded:
 * the tree coreos-installer expects of a CoreOS live ISO (an Ignition embed area named by
 * coreos/igninfo.json, kernel-argument areas in grub.cfg and isolinux.cfg described by
 * coreos/kargs.json, upstream's extra ramdisk area on minimal ISOs), with placeholder kernel,
 * initrd and rootfs. It never boots and says so in its volume id, its boot menus and a
 * SYNTHETIC.TXT at its root. Pure: lists the files; bin/import-base-iso.ts runs xorriso on them.
 */
import { initrdArchive } from './iso-initrd.js';
import { CUSTOM_RAMDISK_PATH, DEFAULT_IGNITION_AREA_PATH, IGNINFO_PATH, KARGS_INFO_PATH, kargsAreaBytes } from './iso-image.js';

/**
 * The base ISOs: RHCOS's full and minimal live ISOs, and for disconnected-iso infra-envs the OVE
 * ISO (upstream's agent-ove.<arch>.iso: a live ISO carrying the release's images for the
 * agent-based installer), which takes its ignition as a full ISO does.
 */
export type BaseImageType = 'full-iso' | 'minimal-iso' | 'disconnected-iso';

export interface SyntheticIsoFile {
  path: string;
  /** The file's bytes, or a size for a file of zeros (written sparse). */
  contents: Uint8Array | { zeros: number };
}

/** RHCOS's sizes: 256 KiB for the Ignition area, 1139 bytes of kernel arguments, 1 MiB extra ramdisk. */
export const SYNTHETIC_IGNITION_AREA = 256 * 1024;
export const SYNTHETIC_KARGS_AREA = 1139;
export const SYNTHETIC_RAMDISK_AREA = 1024 * 1024;
export const SYNTHETIC_MARKER = 'SYNTHETIC.TXT';

const GRUB_PATH = 'EFI/redhat/grub.cfg';
const ISOLINUX_PATH = 'isolinux/isolinux.cfg';

export function syntheticVolumeId(version: string, arch: string): string {
  return `SYNTHETIC-${version}-${arch}`
    .toUpperCase()
    .replace(/[^A-Z0-9_.-]/g, '_')
    .slice(0, 32);
}

export function syntheticDefaultKargs(type: BaseImageType, volumeId: string): string {
  const args = ['ignition.firstboot', 'ignition.platform.id=metal'];
  // A full (or OVE) ISO finds its rootfs on the medium by volume id; a minimal one is told a URL instead.
  return (type !== 'minimal-iso' ? [`coreos.liveiso=${volumeId}`, ...args] : args).join(' ');
}

/** The text before the kargs area and after it; the area starts right after `before`. */
function configWithArea(before: string, after: string, defaultArgs: string): { bytes: Buffer; offset: number } {
  const area = kargsAreaBytes(defaultArgs, { offset: 0, length: SYNTHETIC_KARGS_AREA, pad: '#', end: '\n' });
  const head = Buffer.from(before, 'utf8');
  return { bytes: Buffer.concat([head, area, Buffer.from(after, 'utf8')]), offset: head.length };
}

/**
 * The files of a synthetic base ISO. `rootfsBytes` (full ISOs only) sizes the placeholder rootfs,
 * and so the image: a sparse stand-in for RHCOS's ~1 GiB.
 */
export function syntheticIsoTree(options: { version: string; arch: string; type: BaseImageType; rootfsBytes?: number }): {
  volumeId: string;
  files: SyntheticIsoFile[];
} {
  const volumeId = syntheticVolumeId(options.version, options.arch);
  const defaultArgs = syntheticDefaultKargs(options.type, volumeId);
  const minimal = options.type === 'minimal-iso';
  const initrds = ['/images/pxeboot/initrd.img', `/${DEFAULT_IGNITION_AREA_PATH}`, ...(minimal ? [`/${CUSTOM_RAMDISK_PATH}`] : [])];
  const title = `SYNTHETIC ${options.type} ${options.version} ${options.arch} (not RHCOS; does not boot)`;
  const grub = configWithArea(
    `# ${title}\nset timeout=5\nmenuentry '${title}' {\n\tlinux /images/pxeboot/vmlinuz `,
    `\n\tinitrd ${initrds.join(' ')}\n}\n`,
    defaultArgs,
  );
  const isolinux = configWithArea(
    `# ${title}\ndefault linux\nlabel linux\n  menu label ${title}\n  kernel /images/pxeboot/vmlinuz\n  append initrd=${initrds.join(',')} `,
    '\n',
    defaultArgs,
  );
  const kargsInfo = {
    default: defaultArgs,
    files: [
      { path: GRUB_PATH, offset: grub.offset },
      { path: ISOLINUX_PATH, offset: isolinux.offset },
    ],
    size: SYNTHETIC_KARGS_AREA,
  };
  const text = (value: string) => Buffer.from(value, 'utf8');
  const files: SyntheticIsoFile[] = [
    {
      path: SYNTHETIC_MARKER,
      contents: text(
        `SYNTHETIC base ISO built by assisted-cloud (${options.type}, OpenShift ${options.version}, ${options.arch}).\nIt has the layout of a CoreOS live ISO so discovery images can be composed and checked, but it is not RHCOS and does not boot.\n` +
          (options.type === 'disconnected-iso' ? 'It stands in for the OVE ISO (agent-ove): it carries no release images and no appliance registry.\n' : ''),
      ),
    },
    { path: IGNINFO_PATH, contents: text(JSON.stringify({ file: DEFAULT_IGNITION_AREA_PATH })) },
    { path: KARGS_INFO_PATH, contents: text(JSON.stringify(kargsInfo)) },
    { path: DEFAULT_IGNITION_AREA_PATH, contents: { zeros: SYNTHETIC_IGNITION_AREA } },
    { path: GRUB_PATH, contents: grub.bytes },
    { path: ISOLINUX_PATH, contents: isolinux.bytes },
    { path: 'images/pxeboot/vmlinuz', contents: text('SYNTHETIC kernel placeholder: not a kernel\n') },
    {
      path: 'images/pxeboot/initrd.img',
      contents: initrdArchive([{ path: 'etc/assisted-synthetic-initrd', contents: 'SYNTHETIC initrd placeholder\n', mode: 0o644 }]),
    },
  ];
  if (minimal) files.push({ path: CUSTOM_RAMDISK_PATH, contents: { zeros: SYNTHETIC_RAMDISK_AREA } });
  else files.push({ path: 'images/pxeboot/rootfs.img', contents: { zeros: Math.max(0, options.rootfsBytes ?? 0) } });
  return { volumeId, files };
}
