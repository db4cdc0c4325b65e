/**
 * Upstream's InstallCmdRequest (swagger `install_cmd_request`), validated the way the agent's install
 * action does before it starts anything: required fields, UUIDs, image references, installer_args
 * allow-list, must-gather images, proxy URLs, OpenShift version, disk paths.
 */
import { parseInstallerArgs } from './installer-args.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import { isUuid } from '../../../contracts/input-checks.js';

export interface InstallProxy {
  readonly http_proxy?: string;
  readonly https_proxy?: string;
  readonly no_proxy?: string;
}

export interface InstallCmdRequest {
  readonly cluster_id: string;
  readonly infra_env_id: string;
  readonly host_id: string;
  readonly role: 'master' | 'worker' | 'bootstrap' | 'arbiter' | 'auto-assign';
  readonly boot_device: string;
  readonly controller_image: string;
  readonly installer_image: string;
  readonly control_plane_count?: number;
  readonly proxy?: InstallProxy;
  readonly check_cvo?: boolean;
  readonly disks_to_format?: readonly string[];
  readonly must_gather_image?: string;
  readonly mco_image?: string;
  readonly openshift_version?: string;
  readonly service_ips?: readonly string[];
  readonly installer_args?: string;
  readonly skip_installation_disk_cleanup?: boolean;
  readonly enable_skip_mco_reboot?: boolean;
  readonly notify_num_reboots?: boolean;
  readonly coreos_image?: string;
}

/** A request that passed validation, with installer_args already parsed. */
export interface ValidatedInstallRequest extends InstallCmdRequest {
  readonly installerArgs: readonly string[];
}

export type InstallRequestResult = { readonly ok: true; readonly request: ValidatedInstallRequest } | { readonly ok: false; readonly error: string };

/** Swagger's image reference pattern for controller_image, installer_image, mco_image. */
const IMAGE_REF = /^(([a-zA-Z0-9\-.]+)(:[0-9]+)?\/)?[a-z0-9._\-/@]+[?::a-zA-Z0-9_\-.]+$/;
const SERVICE_IP = /^(?:(?:(?:[0-9]{1,3}\.){3}[0-9]{1,3})|(?:(?:[0-9a-fA-F]*:[0-9a-fA-F]*){2,}))$/;
/** Lenient semantic version as hashicorp/go-version accepts it (4.16, 4.16.3, 4.17.0-rc.1). */
const VERSION = /^v?\d+(\.\d+)*(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
const ROLES = ['master', 'worker', 'bootstrap', 'arbiter', 'auto-assign'];
const MUST_GATHER_OPERATORS = ['cnv', 'lso', 'ocs', 'odf', 'ocp'];

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`${key} must be a string`);
  return value;
}

function optionalBoolean(body: Record<string, unknown>, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new Error(`${key} must be a boolean`);
  return value;
}

function optionalStringArray(body: Record<string, unknown>, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Error(`${key} must be an array of strings`);
  return value;
}

function requiredString(body: Record<string, unknown>, key: string): string {
  const value = optionalString(body, key);
  if (value === undefined || value === '') throw new Error(`${key} is required`);
  return value;
}

function validateProxyUrl(key: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`proxy ${key} "${value}" is not a valid URL`);
  }
  if (url.protocol !== 'http:') throw new Error(`proxy ${key} "${value}": only http:// proxies are supported`);
}

function validateMustGather(value: string): void {
  let images: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(value);
    images = isJsonObject(parsed) ? parsed : { ocp: value };
  } catch {
    images = { ocp: value };
  }
  for (const [operator, image] of Object.entries(images)) {
    if (typeof image !== 'string' || !IMAGE_REF.test(image)) throw new Error(`must gather image ${String(image)} validation failed`);
    if (!MUST_GATHER_OPERATORS.includes(operator)) throw new Error(`must gather operator name ${operator} validation failed`);
  }
}

/**
 * Parses and validates `args[0]` of an install step. Disk paths are checked for shape here; whether
 * they exist is the caller's business (the dry-run writes to a file instead).
 */
export function parseInstallCmdRequest(raw: string | undefined): InstallRequestResult {
  if (raw === undefined || raw.trim() === '') return { ok: false, error: 'install: expected one argument, the InstallCmdRequest JSON' };
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (error) {
    return { ok: false, error: `install: InstallCmdRequest is not valid JSON: ${(error as Error).message}` };
  }
  if (!isJsonObject(body)) return { ok: false, error: 'install: InstallCmdRequest must be a JSON object' };
  try {
    const clusterId = requiredString(body, 'cluster_id');
    const infraEnvId = requiredString(body, 'infra_env_id');
    const hostId = requiredString(body, 'host_id');
    for (const [key, value] of [
      ['cluster_id', clusterId],
      ['infra_env_id', infraEnvId],
      ['host_id', hostId],
    ] as const) {
      if (!isUuid(value)) throw new Error(`${key} "${value}" is not a UUID`);
    }
    const role = requiredString(body, 'role');
    if (!ROLES.includes(role)) throw new Error(`role "${role}" is not one of ${ROLES.join(', ')}`);
    if (role === 'auto-assign') throw new Error('role auto-assign must be resolved by the service before installation');
    const bootDevice = requiredString(body, 'boot_device');
    const controllerImage = requiredString(body, 'controller_image');
    const installerImage = requiredString(body, 'installer_image');
    for (const [key, value] of [
      ['controller_image', controllerImage],
      ['installer_image', installerImage],
      ['mco_image', optionalString(body, 'mco_image')],
    ] as const) {
      if (value !== undefined && value !== '' && !IMAGE_REF.test(value)) throw new Error(`${key} "${value}" is not a valid image reference`);
    }
    const controlPlaneCount = body.control_plane_count;
    if (
      controlPlaneCount !== undefined &&
      controlPlaneCount !== null &&
      (typeof controlPlaneCount !== 'number' || !Number.isInteger(controlPlaneCount) || controlPlaneCount < 0)
    ) {
      throw new Error('control_plane_count must be a non-negative integer');
    }
    const disksToFormat = optionalStringArray(body, 'disks_to_format') ?? [];
    for (const disk of [...disksToFormat, bootDevice]) {
      if (!disk.startsWith('/dev/')) throw new Error(`disk ${disk} should start with /dev/`);
    }
    const mustGather = optionalString(body, 'must_gather_image');
    if (mustGather) validateMustGather(mustGather);
    let proxy: InstallProxy | undefined;
    if (body.proxy !== undefined && body.proxy !== null) {
      if (!isJsonObject(body.proxy)) throw new Error('proxy must be an object');
      const rawProxy = body.proxy;
      proxy = {
        http_proxy: optionalString(rawProxy, 'http_proxy'),
        https_proxy: optionalString(rawProxy, 'https_proxy'),
        no_proxy: optionalString(rawProxy, 'no_proxy'),
      };
      if (proxy.http_proxy) validateProxyUrl('http_proxy', proxy.http_proxy);
      if (proxy.https_proxy) validateProxyUrl('https_proxy', proxy.https_proxy);
      if (proxy.no_proxy && /\s/.test(proxy.no_proxy.trim())) throw new Error('proxy no_proxy must be a comma-separated list without spaces');
    }
    const openshiftVersion = optionalString(body, 'openshift_version');
    if (openshiftVersion && !VERSION.test(openshiftVersion)) throw new Error(`Failed to parse OCP version ${openshiftVersion}`);
    const serviceIps = optionalStringArray(body, 'service_ips');
    for (const ip of serviceIps ?? []) if (!SERVICE_IP.test(ip)) throw new Error(`service_ips entry "${ip}" is not an IP address`);
    const installerArgsRaw = optionalString(body, 'installer_args');
    const installerArgs = parseInstallerArgs(installerArgsRaw);
    if (!installerArgs.ok) throw new Error(installerArgs.error);
    const request: ValidatedInstallRequest = {
      cluster_id: clusterId,
      infra_env_id: infraEnvId,
      host_id: hostId,
      role: role as InstallCmdRequest['role'],
      boot_device: bootDevice,
      controller_image: controllerImage,
      installer_image: installerImage,
      control_plane_count: typeof controlPlaneCount === 'number' ? controlPlaneCount : undefined,
      proxy,
      check_cvo: optionalBoolean(body, 'check_cvo'),
      disks_to_format: disksToFormat,
      must_gather_image: mustGather,
      mco_image: optionalString(body, 'mco_image'),
      openshift_version: openshiftVersion,
      service_ips: serviceIps,
      installer_args: installerArgsRaw,
      skip_installation_disk_cleanup: optionalBoolean(body, 'skip_installation_disk_cleanup'),
      enable_skip_mco_reboot: optionalBoolean(body, 'enable_skip_mco_reboot'),
      notify_num_reboots: optionalBoolean(body, 'notify_num_reboots'),
      coreos_image: optionalString(body, 'coreos_image'),
      installerArgs: installerArgs.args,
    };
    return { ok: true, request };
  } catch (error) {
    return { ok: false, error: `install: invalid InstallCmdRequest: ${(error as Error).message}` };
  }
}
