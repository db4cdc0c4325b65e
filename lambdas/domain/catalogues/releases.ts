/**
 * The OpenShift release catalogue (openshift-versions.json): the releases we offer, per
 * architecture, shaped into upstream's `openshift-version` and `release-source` models, and how a
 * requested version resolves to a release image. Pure: no I/O, no clock.
 */
import openshiftVersionsData from './openshift-versions.json' with { type: 'json' };
import { badRequest } from '../core/errors.js';
import { isCpuArchitecture, knownCatalogueValue, normalizeCpuArchitecture, type CpuArchitecture } from './feature-support.js';
import { compareBaseVersions, hasPatch, majorMinor, parseBaseVersion, stripMultiSuffix } from '../core/ocp-version.js';

export type VersionSupportLevel = 'beta' | 'production' | 'maintenance' | 'end-of-life';
/** Architectures with their own (single-arch) release payload; `multi` is the heterogeneous one. */
const SINGLE_ARCHITECTURES = ['x86_64', 'arm64', 'ppc64le', 's390x'] as const;

export interface OpenshiftRelease {
  /** The minor stream, e.g. "4.18". */
  openshift_version: string;
  /** The release, e.g. "4.18.52" or "5.0.0-ec.5". */
  version: string;
  display_name: string;
  support_level: VersionSupportLevel;
  default?: boolean;
  rhcos_version: string;
  /** Payload pull spec per CPU architecture, `multi` included. */
  release_images: Partial<Record<string, string>>;
  multi_cpu_architectures: string[];
  /** RHCOS live ISO per single CPU architecture; an architecture without one is not offered. */
  os_images: Partial<Record<string, { url: string; version: string }>>;
}

/** The `openshift-version` model. */
export interface OpenshiftVersionView {
  display_name: string;
  support_level: VersionSupportLevel;
  /** Present (true) on the default release only. */
  default?: true;
  cpu_architectures: string[];
}

const VERSION_SUPPORT_LEVELS: readonly VersionSupportLevel[] = ['beta', 'production', 'maintenance', 'end-of-life'];

export const OPENSHIFT_RELEASES: OpenshiftRelease[] = openshiftVersionsData.releases.map(({ support_level, ...release }) => ({
  ...release,
  support_level: knownCatalogueValue(VERSION_SUPPORT_LEVELS, support_level, `openshift-versions.json: ${release.version}`),
}));

const isBeta = (release: OpenshiftRelease) => release.support_level === 'beta';

/** Single architectures a release can install: it needs both a payload and an RHCOS image. */
const singleArchitecturesOf = (release: OpenshiftRelease) => SINGLE_ARCHITECTURES.filter((arch) => release.release_images[arch] && release.os_images[arch]);

const multiArchitecturesOf = (release: OpenshiftRelease) =>
  release.release_images.multi ? release.multi_cpu_architectures.filter((arch) => release.os_images[arch]) : [];

/** Every architecture a release can install, `multi` last when its multi payload is usable. */
const offeredArchitectures = (release: OpenshiftRelease): string[] => [
  ...singleArchitecturesOf(release),
  ...(multiArchitecturesOf(release).length > 0 ? ['multi'] : []),
];

/**
 * The release upstream calls "latest" among candidates: the highest non-beta one, or the
 * highest beta when all are beta.
 */
function latestRelease(candidates: OpenshiftRelease[]): OpenshiftRelease | undefined {
  let latest: OpenshiftRelease | undefined;
  for (const candidate of candidates) {
    if (!latest) latest = candidate;
    else if (isBeta(latest) && !isBeta(candidate)) latest = candidate;
    else if (isBeta(latest) === isBeta(candidate) && compareBaseVersions(candidate.version, latest.version) > 0) latest = candidate;
  }
  return latest;
}

function latestPerMinor(releases: OpenshiftRelease[]): Set<OpenshiftRelease> {
  const byMinor = new Map<string, OpenshiftRelease[]>();
  for (const release of releases) byMinor.set(release.openshift_version, [...(byMinor.get(release.openshift_version) ?? []), release]);
  return new Set([...byMinor.values()].map((group) => latestRelease(group)!));
}

/**
 * GET /v2/openshift-versions. Keys are release versions; a release's multi-arch payload is a
 * separate `<version>-multi` entry. `version` keeps keys containing that substring,
 * `onlyLatest` keeps the latest release of each minor; both may apply.
 */
export function listOpenshiftVersions(
  query: { version?: string; onlyLatest?: boolean } = {},
  releases: OpenshiftRelease[] = OPENSHIFT_RELEASES,
): Record<string, OpenshiftVersionView> {
  const kept = query.onlyLatest ? latestPerMinor(releases) : new Set(releases);
  const versions: Record<string, OpenshiftVersionView> = {};
  const add = (key: string, view: OpenshiftVersionView) => {
    if (query.version !== undefined && !key.includes(query.version)) return;
    if (view.cpu_architectures.length > 0) versions[key] = view;
  };
  for (const release of releases.filter((r) => kept.has(r))) {
    add(release.version, {
      display_name: release.display_name,
      support_level: release.support_level,
      // Upstream names only the default release (default: true) and leaves the flag out of the others.
      ...(release.default === true ? { default: true } : {}),
      cpu_architectures: singleArchitecturesOf(release),
    });
    add(`${release.version}-multi`, {
      display_name: `${release.display_name}-multi`,
      support_level: release.support_level,
      cpu_architectures: multiArchitecturesOf(release),
    });
  }
  return versions;
}

export interface ResolvedRelease {
  /** What the cluster records as openshift_version: the release, `-multi` for the multi payload. */
  openshiftVersion: string;
  releaseImage: string;
  /** `multi` when the multi payload was chosen, else the normalised requested architecture. */
  cpuArchitecture: CpuArchitecture;
}

/**
 * The release a cluster gets for a requested version and CPU architecture. "4.18" means the
 * latest 4.18 release (non-beta preferred); "4.18.52" means exactly that one. A `-multi`
 * suffix selects the multi-arch payload, for architecture `multi` or any it covers. Undefined
 * when nothing fits, architecture `multi` with a version without the suffix included: upstream
 * names multi payloads `4.18-multi` / `4.18.52-multi` and looks a version up by that name, so
 * ("4.18", multi) finds no payload there (a 400).
 */
export function resolveOpenshiftVersion(
  version: string,
  cpuArchitecture: string,
  releases: OpenshiftRelease[] = OPENSHIFT_RELEASES,
): ResolvedRelease | undefined {
  const requested = version.trim();
  const arch = normalizeCpuArchitecture(cpuArchitecture);
  const wantsMulti = requested.endsWith('-multi');
  if (arch === 'multi' && !wantsMulti) return undefined;
  const base = stripMultiSuffix(requested);
  if (!parseBaseVersion(base)) return undefined;
  const fits = (release: OpenshiftRelease) =>
    wantsMulti
      ? multiArchitecturesOf(release).length > 0 && (arch === 'multi' || multiArchitecturesOf(release).includes(arch))
      : (singleArchitecturesOf(release) as string[]).includes(arch);
  const release = hasPatch(base)
    ? releases.find((r) => r.version === base && fits(r))
    : latestRelease(releases.filter((r) => r.openshift_version === base && fits(r)));
  if (!release) return undefined;
  const chosenArch = wantsMulti ? 'multi' : arch;
  if (!isCpuArchitecture(chosenArch)) return undefined;
  return {
    openshiftVersion: wantsMulti ? `${release.version}-multi` : release.version,
    releaseImage: release.release_images[chosenArch]!,
    cpuArchitecture: chosenArch,
  };
}

/**
 * The release a new cluster names by its payload (`ocp_release_image`), as upstream's registration
 * takes it over the version asked for: one of the catalogue's payloads, fitting the architecture
 * the cluster asks for (x86_64 by default; a multi payload fits each architecture it covers, and
 * only a multi payload fits multi).
 */
export function resolveReleaseImage(
  url: string,
  cpuArchitecture: string,
  releases: OpenshiftRelease[] = OPENSHIFT_RELEASES,
): ResolvedRelease | { problem: string } {
  const release = releases.find((r) => Object.values(r.release_images).includes(url));
  if (!release)
    return {
      problem: `failed to get release image by URL ${url} during cluster registration: it is none of the releases this service offers (GET /v2/openshift-versions lists them)`,
    };
  const imageArch = Object.entries(release.release_images).find(([, image]) => image === url)![0] as CpuArchitecture;
  const payloadArchitectures = imageArch === 'multi' ? release.multi_cpu_architectures : [imageArch];
  const requested = normalizeCpuArchitecture(cpuArchitecture || 'x86_64');
  if (requested === 'multi' ? imageArch !== 'multi' : !payloadArchitectures.includes(requested)) {
    return {
      problem:
        requested === 'multi'
          ? `release image URL ${url} does not support requested CPU architecture multi`
          : `Requested CPU architecture ${requested} is not supported for release image URL ${url}. Supported architectures in release image: [${payloadArchitectures.join(' ')}]`,
    };
  }
  return { openshiftVersion: imageArch === 'multi' ? `${release.version}-multi` : release.version, releaseImage: url, cpuArchitecture: imageArch };
}

/**
 * The RHCOS image an infra-env boots, named by its minor ("4.18"), as upstream picks it: the image
 * of the requested version's minor for the architecture, or, with no version asked for, the highest
 * minor with an image for it (a beta one included: upstream's OS image list knows no support
 * levels). The cluster an infra-env belongs to plays no part. Throws upstream's 400 when none fits.
 */
export function osImageVersionFor(requestedVersion: string | undefined, cpuArchitecture: string, releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): string {
  const arch = normalizeCpuArchitecture(cpuArchitecture || 'x86_64');
  const minors = [...new Set(releases.filter((release) => release.os_images[arch]).map((release) => release.openshift_version))];
  if (minors.length === 0) throw badRequest(`The requested CPU architecture (${arch}) isn't specified in OS images list`);
  const requested = requestedVersion?.trim();
  if (!requested) return minors.reduce((latest, minor) => (compareBaseVersions(minor, latest) > 0 ? minor : latest));
  const minor = majorMinor(stripMultiSuffix(requested));
  if (minor && minors.includes(minor)) return minor;
  throw badRequest(
    `No OS image for Openshift version ${requested} and architecture ${arch}: The requested OS image for version (${requested}) and CPU architecture (${arch}) isn't specified in OS images list`,
  );
}

/** The release resolveOpenshiftVersion finds, or a 400 saying where the offered ones are listed. */
export function resolveRelease(version: string, cpuArchitecture = 'x86_64'): ResolvedRelease {
  const release = resolveOpenshiftVersion(version, cpuArchitecture);
  if (!release) {
    throw badRequest(`OpenShift ${version} for ${cpuArchitecture} is not offered; GET /v2/openshift-versions lists what is`);
  }
  return release;
}

/** CPU architectures offered for a version ("4.18", "4.18.52"), `multi` included when offered. */
export function cpuArchitecturesOf(version: string, releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): string[] {
  const base = stripMultiSuffix(version.trim());
  const matching = releases.filter((r) => (hasPatch(base) ? r.version === base : r.openshift_version === majorMinor(base)));
  return [...new Set(matching.flatMap(offeredArchitectures))];
}

/**
 * Upstream's check of the architecture a new cluster names: x86_64 (or none) and multi always
 * pass, any other must be one its OS images offer for the version, by their own name (so the
 * alias aarch64, which the infra-env accepts, is refused for a cluster).
 */
export function clusterCpuArchitectureProblem(version: string, requested: string | undefined): string | undefined {
  if (requested === undefined || requested === '' || requested === 'x86_64' || requested === 'multi') return undefined;
  return cpuArchitecturesOf(version).includes(requested) ? undefined : `Requested CPU architecture ${requested} is not available`;
}

/** The `release-source` model: which minors and architectures we offer, and from which channel. */
export interface ReleaseSource {
  openshift_version: string;
  multi_cpu_architectures: string[];
  upgrade_channels: { cpu_architecture: string; channels: ('stable' | 'candidate')[] }[];
}

/**
 * GET /v2/release-sources, derived from the release catalogue so the two never disagree:
 * beta minors come from the candidate channel, the rest from stable.
 */
export function listReleaseSources(releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): ReleaseSource[] {
  const latest = [...latestPerMinor(releases)].sort((a, b) => compareBaseVersions(a.version, b.version));
  return latest.map((release) => {
    const channels: ('stable' | 'candidate')[] = [isBeta(release) ? 'candidate' : 'stable'];
    // A minor's payloads may be of several z-streams (4.13's arm64 and multi trail its x86_64): the minor offers them all.
    const ofMinor = releases.filter((r) => r.openshift_version === release.openshift_version);
    const order: readonly string[] = [...SINGLE_ARCHITECTURES, 'multi'];
    const architectures = [...new Set(ofMinor.flatMap(offeredArchitectures))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    return {
      openshift_version: release.openshift_version,
      multi_cpu_architectures: [...new Set(ofMinor.flatMap(multiArchitecturesOf))],
      upgrade_channels: architectures.map((cpu_architecture) => ({ cpu_architecture, channels })),
    };
  });
}

/** The release marked default (the latest production one); the unit tests check there is one. */
export function defaultRelease(releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): OpenshiftRelease {
  const release = releases.find((r) => r.default === true);
  if (!release) throw new Error('openshift-versions.json marks no release as default');
  return release;
}

/** The version a request that names none gets, e.g. "4.22.9". */
export const defaultOpenshiftVersion = (releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): string => defaultRelease(releases).version;
