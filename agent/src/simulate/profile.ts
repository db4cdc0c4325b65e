/**
 * Simulation profiles: the hardware a simulated host claims (everything of an upstream inventory
 * except what identifies one machine: hostname, MACs, addresses, serials) and how its checks behave.
 * Built-in profiles ship in agent/profiles/ and are bundled into the agent.
 */
import { readFileSync } from 'node:fs';
import master from '../../profiles/master.json' with { type: 'json' };
import sno from '../../profiles/sno.json' with { type: 'json' };
import undersized from '../../profiles/undersized.json' with { type: 'json' };
import worker from '../../profiles/worker.json' with { type: 'json' };

export interface ProfileDisk {
  readonly name: string;
  readonly drive_type: string;
  readonly size_bytes: number;
  readonly [field: string]: unknown;
}

export interface ProfileInterface {
  readonly name: string;
  readonly mtu?: number;
  readonly [field: string]: unknown;
}

export interface SimulationProfile {
  readonly name: string;
  readonly description?: string;
  /** Hostnames are `<prefix>-<n>`, numbered per prefix within a fleet. */
  readonly hostname_prefix?: string;
  readonly inventory: {
    readonly cpu: Record<string, unknown>;
    readonly memory: Record<string, unknown>;
    readonly disks: readonly ProfileDisk[];
    readonly interfaces: readonly ProfileInterface[];
    readonly [field: string]: unknown;
  };
  readonly behaviour?: {
    /** p99 fdatasync latency the disk speed check reports. */
    readonly disk_sync_ms?: number;
    /** Round trip to fleet peers. */
    readonly rtt_ms?: number;
    /** Time an image pull takes. */
    readonly image_pull_seconds?: number;
  };
}

export const BUILT_IN_PROFILES: Readonly<Record<string, SimulationProfile>> = { master, worker, sno, undersized };

function check(profile: SimulationProfile, origin: string): SimulationProfile {
  const inventory = profile?.inventory;
  const problems = [
    typeof profile?.name !== 'string' && 'name (string)',
    typeof inventory?.cpu !== 'object' && 'inventory.cpu',
    typeof inventory?.memory !== 'object' && 'inventory.memory',
    !Array.isArray(inventory?.disks) && 'inventory.disks (array)',
    !(Array.isArray(inventory?.interfaces) && inventory.interfaces.length > 0) && 'inventory.interfaces (at least one)',
  ].filter(Boolean);
  if (problems.length) throw new Error(`simulation profile ${origin} lacks ${problems.join(', ')}`);
  return profile;
}

/** A built-in profile by name, or a profile file by path. */
export function loadProfile(nameOrPath: string): SimulationProfile {
  const builtIn = BUILT_IN_PROFILES[nameOrPath];
  if (builtIn) return check(builtIn, nameOrPath);
  let text: string;
  try {
    text = readFileSync(nameOrPath, 'utf8');
  } catch (error) {
    throw new Error(
      `simulation profile ${nameOrPath}: not a built-in profile (${Object.keys(BUILT_IN_PROFILES).join(', ')}) and not a readable file: ${(error as Error).message}`,
    );
  }
  let parsed: SimulationProfile;
  try {
    parsed = JSON.parse(text) as SimulationProfile;
  } catch (error) {
    throw new Error(`simulation profile ${nameOrPath} is not JSON: ${(error as Error).message}`);
  }
  return check(parsed, nameOrPath);
}

/** `master:3,worker:2`: built-in profiles (or profile files) with how many hosts of each. */
export function profilesFromMix(mix: string): SimulationProfile[] {
  return mix
    .split(',')
    .filter(Boolean)
    .flatMap((part) => {
      const at = part.lastIndexOf(':');
      const count = Number(part.slice(at + 1));
      if (at <= 0 || !Number.isInteger(count) || count < 0) throw new RangeError(`expected PROFILE:COUNT, got ${JSON.stringify(part)}`);
      const profile = loadProfile(part.slice(0, at));
      return Array.from({ length: count }, () => profile);
    });
}
