/**
 * What a step reply changes (upstream's step-reply handling, type by type): what is stored on the
 * host, what moves it by the host table, what the cluster's VIPs learn, and which events it is
 * worth. Pure.
 */
import type { EventProps } from '../events/events.js';
import { badRequest } from '../core/errors.js';
import type { Cluster, Host } from '../core/entities.js';
import { hostDisplayName, requestContext, withTransition } from '../host/host.js';
import { isNotAllowed, transitionHost, type HostTransition } from '../host/host-state-machine.js';
import { parseStoredJson } from '../core/stored-json.js';
import { diskRequirement, storeInventoryAndDisks, type DiskRequirementSource } from '../host/installation-disk.js';
import { withoutGoEmptyValues } from '../host/inventory.js';

import { reachabilityChanged } from '../host/validations/host-validations-connectivity.js';
import { MAX_INVENTORY_BYTES, MEDIA_DISCONNECTED_EXIT_CODE, type StepReply } from './agent-protocol.js';
import { isJsonObject, jsonKind, recordOf, text, type Reader } from '../../../contracts/json-shapes.js';
import { readImageStatuses, STEP_OUTPUT_READERS, type ContainerImageAvailability, type VerifiedVip } from '../../../contracts/step-replies.js';

/** What a reply is judged with: the time, and the cluster (none: the infra-env) whose disk size and release an inventory's disks are judged for. */
export interface StepReplyContext {
  now: string;
  disks: DiskRequirementSource;
}

/**
 * Replies whose stored result the validations of other hosts read (hostnames and interfaces,
 * connectivity reports, the API VIP's ignition): after one of these, peers must be listed anew.
 */
const READ_BY_PEERS: ReadonlySet<string> = new Set(['inventory', 'connectivity-check', 'api-vip-connectivity-check']);

/**
 * Whether a reply that changed the host (`after` is what it stores) changed what its peers read:
 * a connectivity report whose round-trip times alone moved is news to the host's own latency
 * checks, not to its peers (reachabilityOf).
 */
export function isNewsToPeers(stepType: string, before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): boolean {
  if (!READ_BY_PEERS.has(stepType)) return false;
  return stepType !== 'connectivity-check' || reachabilityChanged(before.connectivity, after.connectivity);
}

/**
 * When the connectivity report stored on the host was taken. `connectivity_checked_at` says when
 * the host last answered a check, which may be later: an answer that changed nothing a verdict
 * reads is recorded apart (connectivityReplyWrite).
 */
export const CONNECTIVITY_STORED_AT = 'connectivity_stored_at';

/**
 * How long the round-trip times, packet loss and MTU results stored on the host may lag behind
 * its latest report when no verdict moved with them. Such a report is recorded only as answered
 * (on the host's small liveness item), since rewriting the host item, which two of its indexes
 * copy whole, for every periodic report of a steady host was most of what a connected host cost;
 * each refresh still costs about as much as all of an hour's answers. No decision reads the
 * stored figures between two reports without the next report correcting it (every report is
 * judged, and one that moves a verdict is written): they serve a person reading the host, to
 * whom figures under an hour old tell the same as the latest when no threshold was crossed.
 */
export const CONNECTIVITY_FIGURES_REFRESH_MS = 60 * 60_000;

/** What a connectivity reply writes beyond who answered: its figures and when. */
const CONNECTIVITY_FIGURES: ReadonlySet<string> = new Set(['connectivity', 'connectivity_checked_at', CONNECTIVITY_STORED_AT]);

/**
 * What a connectivity reply that changed the host (`after`, from applyStepReply) must write:
 * - 'host' when it changed more than the report's figures: who answered (the host's majority
 *   group and its peers' checks read it), anything else the reply touched (an error cleared,
 *   media back), or there was no report yet; or when the stored figures are older than
 *   CONNECTIVITY_FIGURES_REFRESH_MS;
 * - 'answered' otherwise: the host item keeps its report, and only the answer's time is recorded,
 *   provided that the new figures move no verdict (the caller judges the host with them).
 */
export function connectivityReplyWrite(before: Pick<Host, 'attributes'>, after: Pick<Host, 'attributes'>, now: Date): 'host' | 'answered' {
  const stored = before.attributes.connectivity;
  if (typeof stored !== 'string' || reachabilityChanged(stored, after.attributes.connectivity)) return 'host';
  const storedAt = Date.parse((before.attributes[CONNECTIVITY_STORED_AT] as string | undefined) ?? '');
  const age = now.getTime() - storedAt;
  if (!Number.isFinite(age) || age < 0 || age >= CONNECTIVITY_FIGURES_REFRESH_MS) return 'host';
  const rest = (attributes: Record<string, unknown>) => JSON.stringify(Object.entries(attributes).filter(([name]) => !CONNECTIVITY_FIGURES.has(name)));
  return rest(before.attributes) === rest(after.attributes) ? 'answered' : 'host';
}

const NOT_JSON = Symbol('not JSON');
/** Each reply's output document, parsed once however many times the reply is applied or read. */
const outputDocuments = new WeakMap<StepReply, { text: string; document: unknown }>();

/** The reply's output as a JSON document, or NOT_JSON. */
function outputDocument(reply: StepReply): unknown {
  const text = reply.output ?? '';
  const known = outputDocuments.get(reply);
  if (known?.text === text) return known.document;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    document = NOT_JSON;
  }
  outputDocuments.set(reply, { text, document });
  return document;
}

/** The reply's output as a JSON document, refused when it is not one. */
function jsonOutput(reply: StepReply): unknown {
  const document = outputDocument(reply);
  if (document === NOT_JSON) throw badRequest(`the ${reply.step_type} reply's output is not the JSON document the step produces`);
  return document;
}

/** The JSON kind of each inventory field and the Go type upstream decodes it into. */
const INVENTORY_FIELD_KINDS: Readonly<Record<string, { kind: 'string' | 'object' | 'array'; goType: string }>> = {
  hostname: { kind: 'string', goType: 'string' },
  bmc_address: { kind: 'string', goType: 'string' },
  bmc_v6address: { kind: 'string', goType: 'string' },
  tpm_version: { kind: 'string', goType: 'string' },
  boot: { kind: 'object', goType: 'models.Boot' },
  cpu: { kind: 'object', goType: 'models.CPU' },
  memory: { kind: 'object', goType: 'models.Memory' },
  system_vendor: { kind: 'object', goType: 'models.SystemVendor' },
  truncation: { kind: 'object', goType: 'models.InventoryTruncation' },
  interfaces: { kind: 'array', goType: '[]*models.Interface' },
  disks: { kind: 'array', goType: '[]*models.Disk' },
  gpus: { kind: 'array', goType: '[]*models.Gpu' },
  routes: { kind: 'array', goType: '[]*models.Route' },
};

/** A value's JSON kind in the words of Go's decoder errors ("bool" for a boolean). */
const goJsonKind = (value: unknown): string => (jsonKind(value) === 'boolean' ? 'bool' : jsonKind(value));

/**
 * Upstream decodes an inventory with Go's encoding/json and refuses the reply (400) when a field
 * holds another JSON kind than its Go type (a string for the CPU, a list for the memory), so the
 * host keeps the inventory it had; a null field is read as absent, as Go reads it.
 */
export function inventoryFieldTypeProblem(document: Readonly<Record<string, unknown>>): string | undefined {
  for (const [field, value] of Object.entries(document)) {
    const expected = INVENTORY_FIELD_KINDS[field];
    if (!expected || value === null || value === undefined || goJsonKind(value) === expected.kind) continue;
    return `json: cannot unmarshal ${goJsonKind(value)} into Go struct field Inventory.${field} of type ${expected.goType}`;
  }
  return undefined;
}

/** The output as a JSON object (the shape every step's response model has), refused otherwise. */
function objectOutput(reply: StepReply): Readonly<Record<string, unknown>> {
  const document = jsonOutput(reply);
  if (!isJsonObject(document)) throw badRequest(`the ${reply.step_type} reply's output must be a JSON object`);
  return document;
}

/** The output read into its wire type, refused when its top level is not that type's. */
function readOutput<T>(reply: StepReply, read: Reader<T>): T {
  const output = read(objectOutput(reply));
  if (output === undefined) throw badRequest(`the ${reply.step_type} reply's output is not a ${reply.step_type} response`);
  return output;
}

/** Upstream's agent answers with output only in some failures; what is there reads leniently, or not at all. */
function outputIfReadable<T>(reply: StepReply, read: Reader<T>): T | undefined {
  const document = outputDocument(reply);
  return document === NOT_JSON ? undefined : read(document);
}

/**
 * Replies that move a host by the host table, beyond what they store:
 * - any step answering exit code 256 says the discovery media is gone (the virtual media was
 *   ejected): MediaDisconnect. A host not installing yet is disconnected; one preparing or
 *   installing has lost what it was installing from, and fails;
 * - the install step failing to start the installer: HostInstallationFailed, the host fails
 *   ("installation command failed"; the agent's own words stay in step_errors, out of status_info,
 *   since an installer's output may echo its command line).
 * Undefined when the reply is neither, or the host already knew.
 */
export function replyTransition(host: Host, reply: StepReply, now: string): { host: Host; transition: HostTransition } | undefined {
  const exitCode = reply.exit_code ?? 0;
  // The installer container already running (the install step handed twice) is no failure: upstream ignores it too.
  const alreadyInstalling = exitCode === 125 && (reply.error ?? '').includes('already in use');
  const trigger =
    exitCode === MEDIA_DISCONNECTED_EXIT_CODE
      ? 'MediaDisconnect'
      : exitCode !== 0 && reply.step_type === 'install' && !alreadyInstalling
        ? 'HostInstallationFailed'
        : undefined;
  if (!trigger) return undefined;
  const transition = transitionHost(
    { status: host.status },
    trigger,
    requestContext(host, now, { mediaConnected: host.attributes.media_status !== 'disconnected' }),
  );
  if (isNotAllowed(transition) || !transition.changed) return undefined;
  return { host: withTransition(host, transition, now), transition };
}

/** The last error of each step type that failed (`step_errors`), cleared by its next success. */
const readStepErrors = recordOf(text);

/**
 * Failed replies whose output upstream still reads: the image check exits 2 listing the images that
 * failed, and a disk speed check that could not measure exits non-zero naming its disk; a failed
 * tang check stores the agent's words. Other failed replies store only the error.
 */
const OUTPUT_KEPT_ON_FAILURE: ReadonlySet<string> = new Set(['container-image-availability', 'installation-disk-speed-check', 'tang-connectivity-check']);

/**
 * What a step reply changes on the host; undefined when it changes nothing (the same reply twice,
 * or a check already running that answered with no output).
 */
export function applyStepReply(host: Host, reply: StepReply, context: StepReplyContext): Host | undefined {
  const next = structuredClone(host);
  const attributes = next.attributes;
  const exitCode = reply.exit_code ?? 0;
  if (exitCode === MEDIA_DISCONNECTED_EXIT_CODE) {
    attributes.media_status = 'disconnected';
  } else if (exitCode !== 0) {
    const errors = { ...(readStepErrors(attributes.step_errors) ?? {}) };
    errors[reply.step_type] = (reply.error ?? `exit code ${exitCode}`).slice(0, 500);
    attributes.step_errors = errors;
    if (OUTPUT_KEPT_ON_FAILURE.has(reply.step_type)) applyFailedOutput(attributes, reply, exitCode);
  } else if (reply.output) {
    if (attributes.media_status === 'disconnected') attributes.media_status = 'connected';
    const errors = readStepErrors(attributes.step_errors);
    if (errors?.[reply.step_type]) {
      const rest = { ...errors };
      delete rest[reply.step_type];
      attributes.step_errors = rest;
    }
    applyOutput(attributes, reply, context);
  }
  if (JSON.stringify(next.attributes) === JSON.stringify(host.attributes)) return undefined;
  next.updatedAt = context.now;
  return next;
}

/** Upstream's UpdateImageStatus: a new image is stored whole, a known one only gets its new result. */
function mergeImageStatuses(attributes: Record<string, unknown>, images: readonly ContainerImageAvailability[]): void {
  const current = { ...storedImageStatuses(attributes) };
  for (const image of images) {
    // Results without an image name say nothing the service can keep.
    if (!image.name) continue;
    const known = current[image.name];
    current[image.name] = known ? { ...known, ...(image.result !== undefined ? { result: image.result } : {}) } : image;
  }
  attributes.images_status = JSON.stringify(current);
}

/** The image results stored on a host; an unreadable store throws as JSON.parse does. */
function storedImageStatuses(attributes: Readonly<Record<string, unknown>>): Readonly<Record<string, ContainerImageAvailability>> {
  return readImageStatuses(parseStoredJson(attributes, 'images_status')) ?? {};
}

function setDiskSpeed(attributes: Record<string, unknown>, path: string, exitCode: number, speedMs?: number): void {
  const stored = parseStoredJson(attributes, 'disks_info');
  const disks = isJsonObject(stored) ? { ...stored } : {};
  disks[path] = { path, disk_speed: { tested: true, ...(exitCode !== 0 ? { exit_code: exitCode } : { speed_ms: speedMs ?? 0 }) } };
  attributes.disks_info = JSON.stringify(disks);
}

/** Output of a failed reply that is still stored; output that cannot be read is dropped, as upstream only logs it. */
function applyFailedOutput(attributes: Record<string, unknown>, reply: StepReply, exitCode: number): void {
  if (reply.step_type === 'tang-connectivity-check') {
    attributes.tang_connectivity = (reply.error ?? '').slice(0, 2_000);
  } else if (reply.step_type === 'container-image-availability') {
    const result = outputIfReadable(reply, STEP_OUTPUT_READERS['container-image-availability']);
    if (result) mergeImageStatuses(attributes, result.images);
  } else if (reply.step_type === 'installation-disk-speed-check') {
    const path = outputIfReadable(reply, STEP_OUTPUT_READERS['installation-disk-speed-check'])?.path;
    if (path) setDiskSpeed(attributes, path, exitCode);
  }
}

/**
 * What a successful reply stores. Documents other hosts' validations read (connectivity, names,
 * tang, the API VIP, free addresses) are stored as the agent sent them, once their top level is
 * the step's; the others are stored as read.
 */
function applyOutput(attributes: Record<string, unknown>, reply: StepReply, context: StepReplyContext): void {
  switch (reply.step_type) {
    case 'inventory': {
      if ((reply.output ?? '').length > MAX_INVENTORY_BYTES) throw badRequest(`the inventory is larger than ${MAX_INVENTORY_BYTES} bytes`);
      const document = jsonOutput(reply);
      const typeProblem = isJsonObject(document) ? inventoryFieldTypeProblem(document) : undefined;
      if (typeProblem) throw badRequest(typeProblem);
      const read = STEP_OUTPUT_READERS.inventory(document);
      if (!read) throw badRequest('the inventory must be a JSON object');
      storeInventoryAndDisks(attributes, read, diskRequirement(attributes, read, context.disks));
      if (read.cpu?.architecture) attributes.cpu_architecture = read.cpu.architecture === 'aarch64' ? 'arm64' : read.cpu.architecture;
      break;
    }
    case 'connectivity-check':
      readOutput(reply, STEP_OUTPUT_READERS['connectivity-check']);
      attributes.connectivity = reply.output;
      attributes.connectivity_checked_at = context.now;
      attributes[CONNECTIVITY_STORED_AT] = context.now;
      break;
    case 'free-network-addresses': {
      const networks = jsonOutput(reply);
      if (!Array.isArray(networks) || networks.length === 0) throw badRequest('the free-network-addresses reply lists no network');
      attributes.free_addresses = reply.output;
      break;
    }
    case 'ntp-synchronizer': {
      // A list that is not one is refused, not read as none: the host would look unsynchronised.
      const sources = objectOutput(reply).ntp_sources ?? [];
      if (!Array.isArray(sources)) throw badRequest("the ntp-synchronizer reply's ntp_sources must be a list");
      attributes.ntp_sources = JSON.stringify(readOutput(reply, STEP_OUTPUT_READERS['ntp-synchronizer']).ntp_sources ?? []);
      break;
    }
    case 'domain-resolution':
      objectOutput(reply);
      attributes.domain_name_resolutions = reply.output;
      break;
    // Stored as upstream's Go models re-serialize them: a false is_success (and other empty
    // scalars) left out.
    case 'tang-connectivity-check':
      attributes.tang_connectivity = JSON.stringify(withoutGoEmptyValues(objectOutput(reply)));
      break;
    case 'api-vip-connectivity-check':
      attributes.api_vip_connectivity = JSON.stringify(withoutGoEmptyValues(objectOutput(reply)));
      break;
    case 'container-image-availability': {
      const result = STEP_OUTPUT_READERS['container-image-availability'](objectOutput(reply));
      if (!result) throw badRequest('the container-image-availability reply lists no images');
      mergeImageStatuses(attributes, result.images);
      break;
    }
    case 'installation-disk-speed-check': {
      // A duration that is not one is refused, not read as none: it would pass as an instant disk.
      const duration = objectOutput(reply).io_sync_duration ?? 0;
      if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0)
        throw badRequest("the disk speed reply's io_sync_duration must be a number of milliseconds");
      const { path } = readOutput(reply, STEP_OUTPUT_READERS['installation-disk-speed-check']);
      if (!path) throw badRequest('the disk speed reply names no disk path');
      setDiskSpeed(attributes, path, 0, Math.round(duration));
      break;
    }
    case 'verify-vips':
      // Checked here, acted on by the caller: VIP verdicts belong to the cluster.
      if (!Array.isArray(jsonOutput(reply))) throw badRequest('the verify-vips reply must list the VIPs');
      break;
    case 'dhcp-lease-allocate':
      // Leases are only asked of hosts whose cluster allocates its VIPs by DHCP; upstream refuses
      // (with a 500, a server error for the agent's mistake) a lease for any other cluster.
      if (context.disks.cluster?.attributes.vip_dhcp_allocation !== true) {
        throw badRequest("DHCP is not enabled in the host's cluster: no VIP lease was asked of it");
      }
      break;
    case 'upgrade-agent':
      // Checked here, acted on by the caller: the upgrade's result is an event.
      objectOutput(reply);
      break;
    default:
      // Replies of steps whose results live elsewhere (logs, stop) change nothing on the host here.
      break;
  }
}

export type VipVerification = NonNullable<VerifiedVip['verification']>;

/**
 * The cluster's VIPs with the verdicts of a verify-vips reply applied (upstream's
 * HandleVerifyVipsResponse): undefined when the reply changes none of them. Verdicts for addresses
 * the cluster no longer has are ignored.
 */
export function applyVipVerifications(cluster: Cluster, reply: StepReply): Pick<Cluster['attributes'], 'api_vips' | 'ingress_vips'> | undefined {
  if ((reply.exit_code ?? 0) !== 0 || !reply.output) return undefined;
  const verdicts = outputIfReadable(reply, STEP_OUTPUT_READERS['verify-vips']);
  if (!verdicts) return undefined;
  let changed = false;
  const update = (field: 'api_vips' | 'ingress_vips', type: VerifiedVip['vip_type']) =>
    (cluster.attributes[field] ?? []).map((vip) => {
      const verification = verdicts.find((entry) => entry.vip === vip.ip && entry.vip_type === type && entry.verification)?.verification;
      if (!verification || verification === vip.verification) return vip;
      changed = true;
      return { ...vip, verification };
    });
  const result = { api_vips: update('api_vips', 'api'), ingress_vips: update('ingress_vips', 'ingress') };
  return changed ? result : undefined;
}

/** The events a reply is worth on its own, beyond the host's judgement (upstream's reply handlers); they never fail a reply. */
export function stepReplyEvents(before: Host, after: Host, reply: StepReply, diskSpeedThresholdMs: number): { name: string; props: EventProps }[] {
  const hostName = hostDisplayName(after);
  const events: { name: string; props: EventProps }[] = [];
  // Only the image check is read when it fails (exit code 2 lists the images that did not pull).
  if ((reply.exit_code ?? 0) !== 0 && reply.step_type !== 'container-image-availability') return events;
  if (reply.step_type === 'upgrade-agent') {
    const result = outputIfReadable(reply, STEP_OUTPUT_READERS['upgrade-agent']);
    const image = result?.agent_image ?? '';
    if (result?.result === 'success') events.push({ name: 'upgrade_agent_finished', props: { host_name: hostName, agent_image: image } });
    else if (result?.result === 'failure') events.push({ name: 'upgrade_agent_failed', props: { host_name: hostName, agent_image: image } });
  } else if (reply.step_type === 'container-image-availability') {
    const known = storedImageStatuses(before.attributes);
    for (const image of Object.values(storedImageStatuses(after.attributes))) {
      if (!image.name || known[image.name]) continue;
      const size = image.size_bytes ?? 0;
      const info =
        size > 0
          ? `time: ${(image.time ?? 0).toFixed(2)} seconds; size: ${(size / 1e6).toFixed(2)} Megabytes; download rate: ${(image.download_rate ?? 0).toFixed(2)} MBps`
          : '';
      events.push({ name: 'image_status_updated', props: { host_name: hostName, image_status: image.name, result: image.result ?? '', info } });
    }
  } else if (reply.step_type === 'installation-disk-speed-check') {
    const result = outputIfReadable(reply, STEP_OUTPUT_READERS['installation-disk-speed-check']);
    const duration = Math.round(result?.io_sync_duration ?? 0);
    // Upstream warns about a slow disk rather than refusing it: etcd runs, only slower.
    if (diskSpeedThresholdMs > 0 && duration > diskSpeedThresholdMs) {
      events.push({ name: 'disk_speed_slower_than_supported', props: { host_disk: result?.path ?? '', fdatasync_duration: duration } });
    }
  }
  return events;
}
