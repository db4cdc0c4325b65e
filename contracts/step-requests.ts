/**
 * The `args` of every step the service hands an agent, as upstream's agent
 * (openshift/assisted-installer-agent) reads them: one definition that the service encodes with and
 * that our own agent and the simulated fleet decode with, so that none of them can drift from what
 * the agent every discovery image boots expects. Pure; no I/O.
 *
 * Upstream's agent refuses a step whose args do not have the count and shape below ("disk
 * performance cmd accepts 2 params in args"), and keeps refusing it at every poll.
 */
import { Address4 } from 'ip-address';
import { isUuid } from './input-checks.js';

export interface ConnectivityCheckNic {
  name: string;
  mac: string;
  /** Addresses without their prefix length. */
  ip_addresses: string[];
}
export interface ConnectivityCheckHost {
  host_id: string;
  nics: ConnectivityCheckNic[];
}
export interface DiskSpeedCheckRequest {
  path: string;
}
export interface ContainerImageAvailabilityRequest {
  images: string[];
  /** Seconds the agent may spend pulling all of them. */
  timeout: number;
}
export interface DomainResolutionRequest {
  domains: { domain_name: string }[];
}
export interface NtpSynchronizationRequest {
  /** Comma-separated; may be empty (the host's own sources are listed). */
  ntp_source: string;
}
export interface VerifyVipRequest {
  vip: string;
  vip_type: 'api' | 'ingress';
}
export interface TangConnectivityRequest {
  /** A JSON document as text: [{"url", "thumbprint"}]. */
  tang_servers: string;
}
export interface ApiVipConnectivityRequest {
  url: string;
  ca_certificate?: string;
  request_headers?: { key: string; value: string }[];
}
export interface DhcpAllocationRequest {
  interface: string;
  api_vip_mac: string;
  ingress_vip_mac: string;
  api_vip_lease?: string;
  ingress_vip_lease?: string;
}
export interface UpgradeAgentRequest {
  agent_image: string;
}
export interface LogsGatherRequest {
  cluster_id: string;
  infra_env_id: string;
  host_id: string;
  bootstrap: boolean;
  installer_gather: boolean;
  master_ips?: string[];
}

/** What each step type's args carry, decoded. */
export interface StepRequests {
  inventory: { host_id: string };
  'connectivity-check': ConnectivityCheckHost[];
  'free-network-addresses': string[];
  'installation-disk-speed-check': DiskSpeedCheckRequest & { timeout_seconds: number };
  'container-image-availability': ContainerImageAvailabilityRequest;
  'domain-resolution': DomainResolutionRequest;
  'ntp-synchronizer': NtpSynchronizationRequest;
  'verify-vips': VerifyVipRequest[];
  'tang-connectivity-check': TangConnectivityRequest;
  'api-vip-connectivity-check': ApiVipConnectivityRequest;
  'dhcp-lease-allocate': DhcpAllocationRequest;
  'upgrade-agent': UpgradeAgentRequest;
  'logs-gather': LogsGatherRequest;
  'stop-installation': Record<string, never>;
}
export type RequestStepType = keyof StepRequests;

/** Upstream's DISK_CHECK_TIMEOUT (8 minutes), sent as the disk speed check's second argument. */
export const DISK_SPEED_CHECK_TIMEOUT_SECONDS = 480;
/** Upstream's IMAGE_AVAILABILITY_TIMEOUT (16 minutes). */
export const IMAGE_AVAILABILITY_TIMEOUT_SECONDS = 960;
/**
 * The widest IPv4 network a free-addresses scan is asked for (upstream's MaxSmallV4PrefixSize):
 * the agent scans /22 chunks with nmap, so a /8 would be 16,384 scans on every request.
 */
export const FREE_ADDRESSES_MIN_PREFIX = 22;

export class StepArgumentsError extends Error {
  override readonly name = 'StepArgumentsError';
}

/** The args of a step, as the service sends them. */
export function encodeStepArgs<T extends RequestStepType>(stepType: T, request: StepRequests[T]): string[] {
  switch (stepType) {
    case 'inventory':
      return [(request as StepRequests['inventory']).host_id];
    case 'stop-installation':
      return [];
    case 'installation-disk-speed-check': {
      const { timeout_seconds: timeout, ...body } = request as StepRequests['installation-disk-speed-check'];
      // Go's %.2f of the timeout in seconds: the agent parses it as a float.
      return [JSON.stringify(body), timeout.toFixed(2)];
    }
    default:
      return [JSON.stringify(request)];
  }
}

function exactCount(stepType: string, args: readonly string[], count: number): void {
  if (args.length !== count) throw new StepArgumentsError(`${stepType} takes ${count} argument${count === 1 ? '' : 's'} in args, got ${args.length}`);
}

function json(stepType: string, text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    throw new StepArgumentsError(`${stepType} args[0] is not a JSON document`);
  }
}

function object(stepType: string, value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new StepArgumentsError(`${stepType} args[0] must be a JSON object`);
  return value as Record<string, unknown>;
}

function list(stepType: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new StepArgumentsError(`${stepType} args[0] must be a JSON array`);
  return value;
}

function text(stepType: string, body: Record<string, unknown>, key: string, options: { optional?: boolean; allowEmpty?: boolean } = {}): string {
  const value = body[key];
  if (value === undefined && options.optional) return '';
  if (typeof value !== 'string' || (!options.allowEmpty && value === '')) throw new StepArgumentsError(`${stepType} needs a non-empty string "${key}"`);
  return value;
}

/**
 * The request a step's args carry, checked as upstream's agent checks them (argument count, JSON
 * shape, required fields); a StepArgumentsError says what is wrong, for the step's error reply.
 */
export function decodeStepArgs<T extends RequestStepType>(stepType: T, args: readonly string[] | undefined): StepRequests[T] {
  const given = args ?? [];
  const decoded = (value: unknown) => value as StepRequests[T];
  switch (stepType) {
    case 'inventory': {
      exactCount(stepType, given, 1);
      if (!isUuid(given[0]!)) throw new StepArgumentsError(`inventory args[0] must be the host id (a UUID), not ${JSON.stringify(given[0]!.slice(0, 64))}`);
      return decoded({ host_id: given[0] });
    }
    case 'stop-installation':
      exactCount(stepType, given, 0);
      return decoded({});
    case 'installation-disk-speed-check': {
      exactCount(stepType, given, 2);
      const body = object(stepType, json(stepType, given[0]));
      const timeout = Number(given[1]);
      if (!Number.isFinite(timeout) || timeout <= 0)
        throw new StepArgumentsError(`${stepType} args[1] must be a timeout in seconds, not ${JSON.stringify(given[1])}`);
      return decoded({ path: text(stepType, body, 'path'), timeout_seconds: timeout });
    }
    default:
      break;
  }
  exactCount(stepType, given, 1);
  const value = json(stepType, given[0]);
  switch (stepType) {
    case 'connectivity-check':
      return decoded(
        list(stepType, value).map((entry, index) => {
          const host = object(`${stepType} host ${index}`, entry);
          const nics = list(`${stepType} host ${index} nics`, host.nics ?? []).map((nic) => {
            const fields = object(`${stepType} nic`, nic);
            return {
              name: text(stepType, fields, 'name', { optional: true, allowEmpty: true }),
              mac: text(stepType, fields, 'mac', { optional: true, allowEmpty: true }),
              ip_addresses: list(`${stepType} ip_addresses`, fields.ip_addresses ?? []).map(String),
            };
          });
          return { host_id: text(stepType, host, 'host_id'), nics };
        }),
      );
    case 'free-network-addresses':
      return decoded(
        list(stepType, value).map((entry) => {
          if (typeof entry !== 'string') throw new StepArgumentsError(`${stepType} args[0] must list IPv4 CIDRs as strings`);
          return entry;
        }),
      );
    case 'container-image-availability': {
      const body = object(stepType, value);
      const images = list(`${stepType} images`, body.images).map((image) => {
        if (typeof image !== 'string' || image === '') throw new StepArgumentsError(`${stepType} images must be non-empty strings`);
        return image;
      });
      const timeout = body.timeout === undefined ? IMAGE_AVAILABILITY_TIMEOUT_SECONDS : Number(body.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0) throw new StepArgumentsError(`${stepType} timeout must be a number of seconds`);
      return decoded({ images, timeout });
    }
    case 'domain-resolution': {
      const body = object(stepType, value);
      const domains = list(`${stepType} domains`, body.domains).map((entry) => ({ domain_name: text(stepType, object(stepType, entry), 'domain_name') }));
      return decoded({ domains });
    }
    case 'ntp-synchronizer':
      return decoded({ ntp_source: text(stepType, object(stepType, value), 'ntp_source', { allowEmpty: true }) });
    case 'verify-vips':
      return decoded(
        list(stepType, value).map((entry) => {
          const vip = object(stepType, entry);
          const type = text(stepType, vip, 'vip_type');
          if (type !== 'api' && type !== 'ingress') throw new StepArgumentsError(`${stepType} vip_type must be api or ingress, not ${JSON.stringify(type)}`);
          return { vip: text(stepType, vip, 'vip'), vip_type: type };
        }),
      );
    case 'tang-connectivity-check':
      return decoded({ tang_servers: text(stepType, object(stepType, value), 'tang_servers') });
    case 'api-vip-connectivity-check': {
      const body = object(stepType, value);
      return decoded({ ...body, url: text(stepType, body, 'url') });
    }
    case 'dhcp-lease-allocate': {
      const body = object(stepType, value);
      return decoded({
        ...body,
        interface: text(stepType, body, 'interface'),
        api_vip_mac: text(stepType, body, 'api_vip_mac'),
        ingress_vip_mac: text(stepType, body, 'ingress_vip_mac'),
      });
    }
    case 'upgrade-agent':
      return decoded({ agent_image: text(stepType, object(stepType, value), 'agent_image') });
    case 'logs-gather': {
      const body = object(stepType, value);
      for (const key of ['cluster_id', 'infra_env_id', 'host_id']) text(stepType, body, key);
      return decoded({ ...body, bootstrap: body.bootstrap === true, installer_gather: body.installer_gather === true });
    }
    default:
      throw new StepArgumentsError(`no request definition for step type ${String(stepType)}`);
  }
}

/**
 * The IPv4 networks of a host's addresses that a free-addresses scan may be asked for: canonical
 * network CIDRs, IPv4 only, no wider than FREE_ADDRESSES_MIN_PREFIX.
 */
export function freeAddressesNetworks(addressCidrs: readonly string[]): string[] {
  const networks = new Set<string>();
  for (const cidr of addressCidrs) {
    if (!Address4.isValid(cidr)) continue;
    const address = new Address4(cidr);
    if (address.subnetMask < FREE_ADDRESSES_MIN_PREFIX) continue;
    networks.add(`${address.startAddress().correctForm()}/${address.subnetMask}`);
  }
  return [...networks];
}
