/**
 * The agent protocol's vocabulary: the steps the service hands out, what a poll is answered from
 * (StepContext, AgentSettings) and the protocol's timings and limits.
 */
import type { AgentImages } from '../catalogues/catalogues.js';
import type { Cluster, Host } from '../core/entities.js';
import type { Step as WireStep, StepReply as WireStepReply, Steps as WireSteps, StepType as WireStepType } from '../../../contracts/step-replies.js';

/** The steps the service hands out: upstream's step types but the agent's own (execute, next-step-runner). */
export type StepType = Exclude<WireStepType, 'execute' | 'next-step-runner'>;

export type Step = WireStep & { step_type: StepType; args: string[] };

export interface Steps extends Required<Omit<WireSteps, 'instructions'>> {
  instructions: Step[];
}

export type StepReply = WireStepReply & { step_type: StepType };

/**
 * The agent runs `install` in the foreground until the disk is written; asking again while it runs
 * would start a second installer. It is re-sent only if no progress arrived for this long (the
 * reply or the first stage report was lost).
 */
export const INSTALL_STEP_RESEND_MS = 10 * 60_000;
/** Connectivity reports are refreshed at most this often: each check lists the host's peers. */
export const CONNECTIVITY_REFRESH_MS = 120_000;
/** Liveness is written at most this often; a host is disconnected after 3 minutes without a poll. */
export const CHECK_IN_WRITE_INTERVAL_MS = 30_000;
/** DynamoDB items hold 400 KB; an inventory larger than this is refused rather than half-stored. */
export const MAX_INVENTORY_BYTES = 300_000;
export const MEDIA_DISCONNECTED_EXIT_CODE = 256;
/**
 * A host still short of `known` may be waiting only for peers that reported after its last check:
 * it is checked again sooner, so a cluster whose hosts boot together converges in seconds.
 */
export const CONNECTIVITY_RETRY_MS = 15_000;

export interface StepContext {
  host: Host;
  cluster?: Cluster;
  /** Other hosts of the cluster with their NICs; only needed when a connectivity check is due. */
  peers?: () => { host_id: string; nics: { name: string; mac: string; ip_addresses: string[] }[] }[];
  /** The same list already serialised (a JSON array of those objects), preferred when given. */
  peersJson?: () => string;
  /** A check is due whatever its schedule: peers joined since the host's last report. */
  newPeers?: boolean;
  now: Date;
  /** 8 hex characters, as upstream's step ids end with. */
  stepIdSuffix: () => string;
  /** The images the service's settings name; the catalogue's when absent. */
  images?: AgentImages;
  /** Whether agents other than images.agent are told to upgrade (upstream's ENABLE_UPGRADE_AGENT, default on). */
  upgradeAgent?: boolean;
  /** A cap on how long agents wait between polls (labs and tests); upstream's 60/120 s otherwise. */
  maxNextInstructionSeconds?: number;
}

export interface AgentSettings {
  /**
   * The agent image discovery images start and hosts are upgraded to (upstream's AGENT_DOCKER_IMAGE).
   */
  image: string;
  /** Upstream's ENABLE_UPGRADE_AGENT (default on): hosts reporting another agent version are told to upgrade, and are not known until they do. */
  upgrade: boolean;
  /** AGENT_MAX_NEXT_INSTRUCTION_SECONDS: a cap on how long agents wait between polls (labs, tests); upstream's 60/120 s when unset. */
  maxNextInstructionSeconds?: number;
}
