/**
 * Discovery images composed in S3. An infra-env's ISO is its base ISO (per OpenShift minor
 * version, CPU architecture and type, imported into the images bucket) with the Ignition embed
 * area, the kernel-argument areas and, on minimal ISOs, the extra ramdisk area rewritten. The
 * object is built server-side by a multipart upload whose parts are byte-range copies of the
 * base plus the few MiB window around the rewritten areas, so building one costs the same for a
 * 100 MiB or a 1 GiB base. Objects are named by a hash of what went into them and reused.
 * The base images (base-images.ts) and the image tokens (image-tokens.ts) have rooms of their
 * own; this module re-exports both for its callers.
 */
import { createHash } from 'node:crypto';
import { componentVersions, defaultOpenshiftVersion } from '../domain/catalogues/catalogues.js';
import { discoveryIgnitionText, type DiscoveryIgnitionInput, type DiscoveryIsoType } from '../domain/image/discovery-ignition.js';
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import type { InfraEnv } from '../domain/core/entities.js';
import { isJsonObject } from '../../contracts/json-shapes.js';
import { conflict } from '../domain/core/errors.js';
import {
  MIN_PART,
  applyKernelArguments,
  applyPatches,
  kargsAreaBytes,
  planComposition,
  quoteKernelArgument,
  type KernelArgument,
  type Patch,
} from '../domain/image/iso-image.js';
import { fillArea, ignitionArchive, initrdArchive, minimalRamdisk, minimalRamdiskFiles, type CpioFile } from '../domain/image/iso-initrd.js';
import { baseIsoInfoObjectKey, baseIsoObjectKey, discoveryImageObjectKey, infraEnvImagesPrefix } from '../domain/core/object-keys.js';
import { majorMinor } from '../domain/core/ocp-version.js';
import type { BlobStore, ComposePart } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { SyntheticBaseImages } from '../ports/synthetic-base-images.js';
import type { UnconfiguredIgnitions } from '../ports/unconfigured-ignitions.js';
import { isDisconnectedIso } from '../domain/image/infra-env.js';
import { disconnectedIgnitionText, planDisconnectedIgnition } from './disconnected-ignition.js';
import { findInfraEnv } from './access.js';
import { agentTokenEpochOf, issueInfraEnvAgentToken } from './agent-tokens.js';
import { DEFAULT_AGENT_TOKEN_TTL_SECONDS, imageTokenWindow } from '../domain/auth/agent-token.js';
import { recordEvent } from './events.js';
import type { Principal } from './principal.js';
import {
  baseImageOrSynthetic,
  bootArtifact,
  importHint,
  isImageType,
  loadBaseImage,
  readRange,
  type BaseImageInfo,
  type BootArtifact,
  type ImageType,
  type TransferMeter,
} from './base-images.js';

export * from './base-images.js';
export * from './image-tokens.js';

export const IMAGE_SERVICE_PATH = '/api/assisted-images';
/** Stands in for the agent token when hashing: tokens differ per signing, the image's meaning does not. */
const TOKEN_PLACEHOLDER = 'agent-token';

export interface DiscoveryImageDeps {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  syntheticBaseImages?: SyntheticBaseImages;
  /** For disconnected-iso infra-envs, whose ignition is the agent-based installer's unconfigured one. */
  unconfiguredIgnitions?: UnconfiguredIgnitions;
  config: DiscoveryImageSettings;
}

/**
 * The slice of the service's settings a discovery image (and discovery.ign) is made from; the
 * composition root hands over its whole config, which has these fields.
 */
export interface DiscoveryImageSettings {
  /** Base URL clients reach the API at: the image's URLs point there. */
  publicUrl: string;
  imageUrlTtlSeconds: number;
  /** Signs the agent token baked into the image. */
  agentSigningKeyPem?: string | undefined;
  mirrorRegistries?: DiscoveryIgnitionInput['mirrorRegistries'];
  agentTokenTtlSeconds?: number;
  agent?: Pick<AgentSettings, 'image'>;
}

// ---- what goes into an image

/** The minor version and architecture an infra-env's images are built for. */
export function imageReleaseOf(infraEnv: InfraEnv): { version: string; arch: string } {
  const full = infraEnv.attributes.openshift_version ?? defaultOpenshiftVersion();
  return { version: majorMinor(full) ?? full, arch: infraEnv.attributes.cpu_architecture as string };
}

export function bootArtifactUrl(publicUrl: string, artifact: BootArtifact, version: string, arch: string): string {
  return `${publicUrl}${IMAGE_SERVICE_PATH}/boot-artifacts/${artifact}?${new URLSearchParams({ arch, version })}`;
}

function kernelArgumentsOf(infraEnv: InfraEnv): KernelArgument[] {
  const raw = infraEnv.attributes.kernel_arguments;
  if (typeof raw !== 'string' || raw === '') return [];
  const stored: unknown = JSON.parse(raw);
  if (!Array.isArray(stored)) throw new Error(`infra-env ${infraEnv.infraEnvId}: its kernel_arguments are not a list`);
  return stored.filter(isJsonObject).map(({ operation, value }) => ({
    ...(typeof operation === 'string' ? { operation } : {}),
    ...(typeof value === 'string' ? { value } : {}),
  }));
}

/** The kernel command line the image boots with, or undefined when the base's is kept. */
function imageKernelArguments(deps: DiscoveryImageDeps, infraEnv: InfraEnv, base: BaseImageInfo): string | undefined {
  const changes = kernelArgumentsOf(infraEnv);
  const kargs = base.layout.kargs;
  if (base.type !== 'minimal-iso' && changes.length === 0) return undefined;
  if (!kargs) {
    throw conflict(
      `the base ISO for ${base.version}/${base.arch} (${base.type}) has no kernel argument areas, so kernel_arguments cannot be applied; import a newer live ISO`,
    );
  }
  let args = kargs.defaultArgs.split(/\s+/).filter(Boolean);
  if (base.type === 'minimal-iso') {
    // No rootfs on the medium: the initramfs fetches it from us instead.
    args = args.filter((arg) => !arg.startsWith('coreos.liveiso=') && !arg.startsWith('coreos.live.rootfs_url='));
    args.push(quoteKernelArgument(`coreos.live.rootfs_url=${bootArtifactUrl(deps.config.publicUrl, 'rootfs', base.version, base.arch)}`));
  }
  return applyKernelArguments(args, changes).join(' ');
}

async function ignitionText(deps: DiscoveryImageDeps, infraEnv: InfraEnv, isoType: DiscoveryIsoType, agentToken: string): Promise<string> {
  return discoveryIgnitionText({
    infraEnv,
    serviceBaseUrl: deps.config.publicUrl,
    agentImage: deps.config.agent?.image ?? componentVersions().versions['discovery-agent']!,
    agentToken,
    isoType,
    ...(deps.config.mirrorRegistries ? { mirrorRegistries: deps.config.mirrorRegistries } : {}),
  });
}

/**
 * The agent token an image composed now carries: it expires a lifetime after the start of the
 * current renewal window, and names the infra-env's token epoch. Both go into the image's
 * fingerprint, so an image is reused only while its token is that young and that current.
 */
function imageAgentToken(deps: DiscoveryImageDeps, infraEnv: InfraEnv) {
  const { window, expiresAt } = imageTokenWindow(deps.clock.now(), deps.config.agentTokenTtlSeconds ?? DEFAULT_AGENT_TOKEN_TTL_SECONDS);
  return {
    fingerprint: { epoch: agentTokenEpochOf(infraEnv), window },
    issue: () => issueInfraEnvAgentToken(deps.config.agentSigningKeyPem, infraEnv, expiresAt),
  };
}

/**
 * What goes into an image's Ignition area: the discovery ignition with an agent token, or for a
 * disconnected-iso infra-env the unconfigured ignition (no token: its hosts never call us). The
 * fingerprint stands for the ignition in the image's name, so an image is reused only while it
 * would be made the same (the unconfigured ignition itself is not reproducible: its inputs are).
 */
async function imageIgnitionSource(
  deps: DiscoveryImageDeps,
  infraEnv: InfraEnv,
  type: ImageType,
): Promise<{ fingerprint: unknown; simulated: boolean; text(): Promise<string> }> {
  if (isDisconnectedIso(infraEnv)) {
    if (!deps.unconfiguredIgnitions) throw conflict('this function cannot make disconnected ISOs: it has no unconfigured ignition generator');
    const generated = { ...deps, unconfiguredIgnitions: deps.unconfiguredIgnitions };
    const plan = await planDisconnectedIgnition(generated, infraEnv);
    return {
      fingerprint: plan.fingerprint,
      simulated: plan.generator === 'simulated',
      text: async () => (await disconnectedIgnitionText(generated, infraEnv, plan)).text,
    };
  }
  const agentToken = imageAgentToken(deps, infraEnv);
  return {
    fingerprint: { agentToken: agentToken.fingerprint, ignition: await ignitionText(deps, infraEnv, type, TOKEN_PLACEHOLDER) },
    simulated: false,
    text: async () => ignitionText(deps, infraEnv, type, await agentToken.issue()),
  };
}

function digest(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export interface ComposedImage {
  key: string;
  size: number;
  /** The name the download arrives under. */
  fileName: string;
  /** False when an identical image existed and was reused. */
  created: boolean;
  synthetic: boolean;
}

const downloadName = (infraEnv: InfraEnv, suffix: string) => `${infraEnv.name.replace(/[^A-Za-z0-9._-]/g, '_') || infraEnv.infraEnvId}-${suffix}`;

/** Deletes the infra-env's other objects of one kind, once a newer one replaces them. */
async function removeSuperseded(blobs: BlobStore, infraEnv: InfraEnv, prefix: string, keep: string): Promise<void> {
  const base = infraEnvImagesPrefix(infraEnv.orgId, infraEnv.infraEnvId);
  for (const key of await blobs.list('images', `${base}${prefix}`)) if (key !== keep) await blobs.remove('images', key);
}

/** Rebuilds `size` bytes of `sourceKey` with the patches applied, as S3 parts. */
async function composeParts(blobs: BlobStore, sourceKey: string, size: number, patches: Patch[], meter?: TransferMeter): Promise<ComposePart[]> {
  const parts: ComposePart[] = [];
  for (const part of planComposition(size, patches)) {
    if (part.kind === 'copy') {
      parts.push({ kind: 'copy', sourceKey, start: part.start, end: part.end });
      if (meter) meter.copied += part.end - part.start + 1;
    } else {
      const window = applyPatches(part.start, await readRange(blobs, sourceKey, part.start, part.end - part.start, meter), patches);
      parts.push({ kind: 'inline', body: window });
      if (meter) meter.written += window.length;
    }
  }
  return parts;
}

/**
 * The infra-env's discovery ISO of `type` for a version and architecture: reused when one with
 * the same inputs exists, else composed. 409 when the base ISO was never imported.
 */
export async function ensureDiscoveryImage(
  deps: DiscoveryImageDeps,
  infraEnv: InfraEnv,
  request: { type: ImageType; version: string; arch: string },
  meter?: TransferMeter,
): Promise<ComposedImage> {
  const base = await baseImageOrSynthetic(deps, request.version, request.arch, request.type, meter);
  if (!base) throw conflict(importHint(request.version, request.arch, request.type));
  const kernelArguments = imageKernelArguments(deps, infraEnv, base);
  const ramdiskFiles: CpioFile[] = request.type === 'minimal-iso' ? minimalRamdiskFiles(infraEnv) : [];
  // Without upstream's extra ramdisk area the files ride in the Ignition area's archive, as coreos-installer's own network embedding does.
  const ramdiskInArea = ramdiskFiles.length > 0 && base.layout.customRamdisk !== undefined;
  const extraIgnitionFiles = ramdiskInArea ? [] : ramdiskFiles;

  const source = await imageIgnitionSource(deps, infraEnv, request.type);
  const fingerprint = digest({
    base: base.sha256,
    type: request.type,
    ignition: source.fingerprint,
    kernelArguments,
    ramdisk: ramdiskFiles,
  });
  const fileStem = `${request.type}-`;
  const key = discoveryImageObjectKey(infraEnv.orgId, infraEnv.infraEnvId, `${fileStem}${fingerprint}.iso`);
  const labels = `${source.simulated ? '-SIMULATED-ignition' : ''}${base.synthetic ? '-SYNTHETIC' : ''}`;
  const fileName = downloadName(infraEnv, `${request.type}${labels}.iso`);
  const existing = await deps.blobs.size('images', key);
  if (existing !== undefined) return { key, size: existing, fileName, created: false, synthetic: base.synthetic };

  const ignition = await source.text();
  const patches: Patch[] = [
    { offset: base.layout.ignition.offset, bytes: fillArea(ignitionArchive(ignition, extraIgnitionFiles), base.layout.ignition.length, 'discovery ignition') },
  ];
  if (kernelArguments !== undefined) {
    for (const area of base.layout.kargs!.areas) patches.push({ offset: area.offset, bytes: kargsAreaBytes(kernelArguments, area) });
  }
  if (ramdiskInArea) {
    const area = base.layout.customRamdisk!;
    patches.push({ offset: area.offset, bytes: fillArea(initrdArchive(ramdiskFiles), area.length, 'static network ramdisk') });
  }
  const baseKey = baseIsoObjectKey(request.version, request.arch, request.type);
  await deps.blobs.compose('images', key, await composeParts(deps.blobs, baseKey, base.size, patches, meter), 'application/x-iso9660-image');
  await removeSuperseded(deps.blobs, infraEnv, fileStem, key);

  const sshKey = typeof infraEnv.attributes.ssh_authorized_key === 'string' && infraEnv.attributes.ssh_authorized_key.trim() !== '';
  const details = [
    `image type is ${request.type}`,
    `OpenShift ${request.version} ${request.arch}`,
    `SSH public key is ${sshKey ? 'set' : 'not set'}`,
    ...(ramdiskFiles.length > 0 ? ['static network or proxy configuration embedded'] : []),
    ...(source.simulated ? ['SIMULATED unconfigured ignition (no openshift-install configured; does not install)'] : []),
    ...(base.synthetic ? ['SYNTHETIC base ISO (not RHCOS, does not boot)'] : []),
  ].join(', ');
  await recordEvent(deps, { name: 'ignition_config_image_generated', subject: { orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId }, props: { details } });
  return { key, size: base.size, fileName, created: true, synthetic: base.synthetic };
}

/**
 * The iPXE initrd of an infra-env: the version's initrd with the discovery ignition and the
 * static network ramdisk appended as further archives (the kernel unpacks them in turn).
 */
export async function ensurePxeInitrd(
  deps: DiscoveryImageDeps,
  infraEnv: InfraEnv,
  request: { version: string; arch: string },
  meter?: TransferMeter,
): Promise<ComposedImage> {
  if (isDisconnectedIso(infraEnv)) {
    throw conflict(
      `Infra-env ${infraEnv.infraEnvId} makes a disconnected ISO, which has no iPXE boot: download its ISO (GET /v2/infra-envs/${infraEnv.infraEnvId}/downloads/image-url)`,
    );
  }
  const { key: initrdKey, size: initrdSize } = await bootArtifact(deps, 'initrd', request.version, request.arch);
  const ramdisk = minimalRamdisk(infraEnv);
  const agentToken = imageAgentToken(deps, infraEnv);
  const fingerprint = digest({
    initrd: initrdSize,
    agentToken: agentToken.fingerprint,
    base: (await loadBaseImage(deps.blobs, request.version, request.arch, 'full-iso', meter))?.sha256,
    ignition: await ignitionText(deps, infraEnv, 'minimal-iso', TOKEN_PLACEHOLDER),
    ramdisk: ramdisk?.toString('base64'),
  });
  const stem = 'pxe-initrd-';
  const key = discoveryImageObjectKey(infraEnv.orgId, infraEnv.infraEnvId, `${stem}${fingerprint}.img`);
  const fileName = downloadName(infraEnv, 'initrd.img');
  const existing = await deps.blobs.size('images', key);
  if (existing !== undefined) return { key, size: existing, fileName, created: false, synthetic: false };

  const tail = Buffer.concat([ignitionArchive(await ignitionText(deps, infraEnv, 'minimal-iso', await agentToken.issue())), ramdisk ?? Buffer.alloc(0)]);
  const parts: ComposePart[] = [];
  if (initrdSize >= MIN_PART) {
    parts.push(...(await composeParts(deps.blobs, initrdKey, initrdSize, [])));
    if (meter) meter.copied += initrdSize;
    parts.push({ kind: 'inline', body: tail });
  } else {
    // Too small to be a part of its own: read it and send it with the tail.
    parts.push({ kind: 'inline', body: Buffer.concat([await readRange(deps.blobs, initrdKey, 0, initrdSize, meter), tail]) });
  }
  if (meter) meter.written += parts.reduce((total, part) => total + (part.kind === 'inline' ? part.body.length : 0), 0);
  await deps.blobs.compose('images', key, parts, 'application/octet-stream');
  await removeSuperseded(deps.blobs, infraEnv, stem, key);
  return { key, size: initrdSize + tail.length, fileName, created: true, synthetic: false };
}

/**
 * Composes the infra-env's image ahead of its download when its base ISO is there (GetInfraEnvDownloadURL);
 * without one nothing happens here and the image URL itself answers the 409 that says what to import.
 */
export async function prepareDiscoveryImage(deps: DiscoveryImageDeps, infraEnv: InfraEnv): Promise<ComposedImage | undefined> {
  const { version, arch } = imageReleaseOf(infraEnv);
  const type = infraEnv.attributes.type ?? 'full-iso';
  if (!isImageType(type)) return undefined;
  if (!deps.syntheticBaseImages && !(await deps.blobs.size('images', baseIsoInfoObjectKey(version, arch, type)))) return undefined;
  return ensureDiscoveryImage(deps, infraEnv, { type, version, arch });
}

/** Every composed image of an infra-env goes with it. */
export async function removeDiscoveryImages(deps: { blobs: BlobStore }, orgId: string, infraEnvId: string): Promise<void> {
  for (const key of await deps.blobs.list('images', infraEnvImagesPrefix(orgId, infraEnvId))) await deps.blobs.remove('images', key);
}

/** DownloadMinimalInitrd: the minimal ISO's extra ramdisk, or undefined (204) when it would be empty. */
export async function minimalInitrd(deps: { store: Store }, principal: Principal, infraEnvId: string): Promise<Buffer | undefined> {
  return minimalRamdisk(await findInfraEnv(deps.store, principal, infraEnvId));
}
