/**
 * The agent ⇄ service protocol (upstream's hostcommands): which steps a host is asked to run, and
 * what a poll writes of itself. Its rooms: the vocabulary (step-types.ts), registration
 * (host-registration.ts), each step's arguments (step-arguments.ts) and the long checks handed out
 * once (long-checks.ts); this module re-exports them for its callers. What replies change is in
 * step-replies.ts. Pure.
 */
import { createHash } from 'node:crypto';
import instructions from '../catalogues/host-instructions.json' with { type: 'json' };
import type { Cluster, Host } from '../core/entities.js';
import { catalogueAgentImages } from '../catalogues/catalogues.js';
import { hostInventory } from '../host/inventory.js';
import { parseStoredJson } from '../core/stored-json.js';
import { clockMoved } from '../host/host-clock.js';
import { oneOf } from '../../../contracts/json-shapes.js';
import { readConnectivityReport, type ConnectivityReport } from '../../../contracts/step-replies.js';
import { connectivityDue, stepArgs } from './step-arguments.js';
import { CHECK_IN_WRITE_INTERVAL_MS, type Step, type StepContext, type Steps, type StepType } from './step-types.js';

export * from './host-registration.js';
export * from './long-checks.js';
export * from './step-types.js';
export { diskSpeedCheckDevice } from './step-arguments.js';

interface InstructionRule {
  steps: StepType[];
  backedOff?: boolean;
  nextInstructionSeconds?: number;
  postStepAction?: 'continue' | 'exit';
}

/** Every step type the service hands out; the record names each, so tsc sees one added to the type. */
const STEP_TYPES: Readonly<Record<StepType, true>> = {
  'connectivity-check': true,
  inventory: true,
  install: true,
  'free-network-addresses': true,
  'dhcp-lease-allocate': true,
  'api-vip-connectivity-check': true,
  'tang-connectivity-check': true,
  'ntp-synchronizer': true,
  'installation-disk-speed-check': true,
  'container-image-availability': true,
  'domain-resolution': true,
  'stop-installation': true,
  'logs-gather': true,
  'upgrade-agent': true,
  'download-boot-artifacts': true,
  'reboot-for-reclaim': true,
  'verify-vips': true,
};
const readStepType = oneOf(STEP_TYPES);
const readPostStepAction = oneOf<'continue' | 'exit'>({ continue: true, exit: true });

type CatalogueRule = { steps: readonly string[]; backedOff?: boolean; nextInstructionSeconds?: number; postStepAction?: string };

/** A rule book of the catalogue with its names checked: a misspelt step or action fails at load, not at a poll. */
function instructionRules(book: Readonly<Record<string, CatalogueRule>>): Readonly<Record<string, InstructionRule>> {
  return Object.fromEntries(
    Object.entries(book).map(([status, rule]) => {
      const steps = rule.steps.map((name) => readStepType(name) ?? fail(`host-instructions.json: ${status} names an unknown step ${name}`));
      const postStepAction =
        rule.postStepAction === undefined
          ? undefined
          : (readPostStepAction(rule.postStepAction) ?? fail(`host-instructions.json: ${status} has an unknown postStepAction ${rule.postStepAction}`));
      const { backedOff, nextInstructionSeconds } = rule;
      return [
        status,
        {
          steps,
          ...(backedOff !== undefined ? { backedOff } : {}),
          ...(nextInstructionSeconds !== undefined ? { nextInstructionSeconds } : {}),
          ...(postStepAction ? { postStepAction } : {}),
        },
      ];
    }),
  );
}

function fail(message: string): never {
  throw new Error(message);
}

const RULES = {
  day1: instructionRules(instructions.day1),
  day2: instructionRules(instructions.day2),
  unbound: instructionRules(instructions.unbound),
  defaultNextInstructionSeconds: instructions.defaultNextInstructionSeconds,
  backedOffNextInstructionSeconds: instructions.backedOffNextInstructionSeconds,
};

/**
 * What connectivity checks tell hosts about their peers (each host with an inventory, and its
 * NICs' addresses), as a short fingerprint. The cluster's judgement stores it with when it changed,
 * so a poll of another instance, holding a peer listing taken before that, lists the cluster anew
 * instead of handing a check that misses the newest peers (one poll interval lost: a minute with
 * real agents).
 */
export function peerAddressBook(hosts: readonly Host[]): string {
  const entries = hosts
    .filter((host) => host.attributes.inventory)
    .map(
      (host) =>
        `${host.hostId}=${hostNics(host)
          .map((nic) => `${nic.mac}/${nic.ip_addresses.join(',')}`)
          .join(';')}`,
    )
    .sort();
  return createHash('sha256').update(entries.join('\n')).digest('base64url').slice(0, 22);
}

export function hostNics(host: Host): { name: string; mac: string; ip_addresses: string[] }[] {
  return (hostInventory(host)?.interfaces ?? []).map((nic) => ({
    name: nic.name ?? '',
    mac: nic.mac_address ?? '',
    ip_addresses: [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])].map((cidr) => cidr.split('/')[0]!),
  }));
}

function ruleFor(host: Host, cluster: Cluster | undefined): InstructionRule | undefined {
  const book = !host.clusterId
    ? RULES.unbound
    : cluster?.status === 'adding-hosts' || host.attributes.kind === 'AddToExistingClusterHost'
      ? RULES.day2
      : RULES.day1;
  return book[host.status];
}

/** Whether this poll will ask for a connectivity check, so the caller lists the peers only then. */
export function wantsConnectivityCheck(host: Host, cluster: Cluster | undefined, now: Date): boolean {
  return offersConnectivityCheck(host, cluster) && connectivityDue(host, now);
}

/** Whether the host's status has connectivity checks at all (due or not). */
export function offersConnectivityCheck(host: Host, cluster: Cluster | undefined): boolean {
  return !!host.clusterId && !!ruleFor(host, cluster)?.steps.includes('connectivity-check');
}

/**
 * Whether some of these peers are missing from the host's last connectivity report: a host that
 * joined after the report was made. Its peers check it on their next poll rather than at their
 * next periodic check (minutes for known hosts), or the newcomer could not join the majority group.
 */
export function hasUncheckedPeers(host: Host, peerIds: readonly string[]): boolean {
  let report: ConnectivityReport | undefined;
  try {
    report = readConnectivityReport(parseStoredJson(host.attributes, 'connectivity'));
  } catch {
    return true;
  }
  const checked = new Set((report?.remote_hosts ?? []).map((remote) => remote.host_id));
  return peerIds.some((id) => id !== host.hostId && !checked.has(id));
}

/**
 * Statuses in which a host whose agent is not the service's is told to upgrade it (upstream's
 * isAgentUpgradeAllowed): before installation, never once it prepares or installs.
 */
const UPGRADABLE_STATUSES: ReadonlySet<string> = new Set([
  'binding',
  'discovering',
  'discovering-unbound',
  'insufficient',
  'insufficient-unbound',
  'known',
  'pending-for-input',
  'known-unbound',
]);

/**
 * Whether the host's agent runs other than the image the service's hosts must run. A host that never
 * reported its version counts as another one: upstream asks it to upgrade too (checked with its service).
 */
export function agentNeedsUpgrade(host: Host, agentImage: string): boolean {
  return !!agentImage && host.attributes.discovery_agent_version !== agentImage;
}

export function nextSteps(context: StepContext): Steps {
  const rule = ruleFor(context.host, context.cluster);
  const ruleSeconds = rule?.nextInstructionSeconds ?? (rule?.backedOff ? RULES.backedOffNextInstructionSeconds : RULES.defaultNextInstructionSeconds);
  const seconds = context.maxNextInstructionSeconds !== undefined ? Math.min(ruleSeconds, context.maxNextInstructionSeconds) : ruleSeconds;
  const images = context.images ?? catalogueAgentImages();
  if (context.upgradeAgent !== false && UPGRADABLE_STATUSES.has(context.host.status) && agentNeedsUpgrade(context.host, images.agent)) {
    // The upgrade replaces every other step: the agent restarts with the new image and is asked again.
    const step: Step = { step_type: 'upgrade-agent', step_id: `upgrade-agent-${context.stepIdSuffix()}`, args: stepArgs('upgrade-agent', context)! };
    return {
      next_instruction_seconds: Math.min(RULES.defaultNextInstructionSeconds, seconds || RULES.defaultNextInstructionSeconds),
      post_step_action: 'continue',
      instructions: [step],
    };
  }
  const steps: Step[] = [];
  for (const type of rule?.steps ?? []) {
    const args = stepArgs(type, context);
    if (args) steps.push({ step_type: type, step_id: `${type}-${context.stepIdSuffix()}`, args });
  }
  return { next_instruction_seconds: seconds, post_step_action: rule?.postStepAction ?? 'continue', instructions: steps };
}

/**
 * What a poll writes of itself. Liveness only when it is getting stale, and then alone (the host's
 * small liveness item: Store.hosts.checkIn), so a poll is usually a read and at most one write
 * unit. The host itself only when the poll says something its verdicts or its cluster's read
 * beyond liveness: another agent version (it decides an upgrade), the host's first clock reading
 * (the time-sync check), or a clock that moved against the service's (the cluster's clock spread:
 * the write reaches the stream, whose follow-up judges the cluster).
 */
export function checkInWrite(host: Host, now: Date, agentVersion: string | undefined, hostTimestamp?: number): 'host' | 'liveness' | 'none' {
  if (agentVersion && agentVersion !== host.attributes.discovery_agent_version) return 'host';
  if (hostTimestamp !== undefined) {
    if (host.attributes.timestamp === undefined) return 'host';
    if (clockMoved(host, { attributes: { timestamp: hostTimestamp, checked_in_at: now.toISOString() } })) return 'host';
  }
  const last = Date.parse(host.attributes.checked_in_at ?? '');
  return Number.isNaN(last) || now.getTime() - last >= CHECK_IN_WRITE_INTERVAL_MS ? 'liveness' : 'none';
}
