/**
 * The host transition rules driven by requests (agent registration and progress, user and cluster
 * actions), in upstream's order within each trigger; the monitor's RefreshHost rules are in
 * host-refresh-rules.ts. Upstream keeps bound and unbound ("pool") hosts in two rule sets of one
 * machine; their sources or conditions never overlap, so both live here, pool rules after bound.
 */
import type { HostFacts } from './host-facts.js';
import type { HostSourceStatus, HostStatus, HostTrigger } from './host-states.js';
import { HOST_STATUS_INFO as INFO, truncateStatusInfo, wrongBootOrderInfo } from './host-status-info.js';
import { STAY, type EventIntent, type StateRule } from '../core/state-rules.js';

/** Writes a transition asks for beyond status and status_info. */
export type HostEffect =
  | 'rediscover' // re-registration: forget inventory, progress and logs; the agent sends them again
  | 'cluster-preparation-reset' // the cluster's last_installation_preparation goes back to not_started
  | 'images-status-cleared' // a failed image pull is retried while preparing
  | 'logs-reset'
  | 'cluster-bound' // cluster_id set to the requested cluster
  | 'cluster-unbound' // cluster_id cleared, with what was computed against the cluster
  | 'media-disconnected' // media_status = disconnected
  | 'connection-timed-out' // connection_timed_out = true (soft timeouts)
  | 'connection-restored' // connection_timed_out = false
  | 'stage-timed-out' // progress.stage_timed_out = true (soft timeouts)
  | 'stage-updated-at-refreshed' // progress.stage_updated_at = now, so a waived timeout restarts
  | 'logs-timed-out'; // logs_info = timeout

export interface HostRule extends StateRule<HostSourceStatus, HostTrigger, HostFacts> {
  readonly to: HostStatus | typeof STAY;
  /** The new status_info; absent keeps the current one (upstream's rules without a post-transition). */
  readonly statusInfo?: (facts: HostFacts) => string;
  /** A catalogue event beyond host_status_updated; a bare name carries only host_name. */
  readonly event?: string | ((facts: HostFacts) => EventIntent);
  readonly effects?: (facts: HostFacts) => readonly HostEffect[];
  /** The rule matches but the request is answered with an error and nothing changes. */
  readonly refuse?: { readonly httpStatus: 403 | 409; readonly reason: (facts: HostFacts) => string };
}

const fixed = (text: string) => () => text;
const effects =
  (...list: HostEffect[]) =>
  () =>
    list;
const inStage = (facts: HostFacts, stage: string) => facts.stage === stage;

/** Before installation: what a user may still change, and what re-registers as a new host. */
const PRE_INSTALL: readonly HostStatus[] = ['known', 'discovering', 'disconnected', 'insufficient', 'pending-for-input'];
const POOL_PRE_BIND: readonly HostStatus[] = ['discovering-unbound', 'disconnected-unbound', 'insufficient-unbound', 'known-unbound'];

/** MediaDisconnect on a host that already has media_status disconnected: upstream writes nothing. */
const MEDIA_SOURCES: readonly HostStatus[] = [
  'discovering',
  'insufficient',
  'known',
  'pending-for-input',
  'disconnected',
  'binding',
  'preparing-for-installation',
  'preparing-failed',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'error',
  ...POOL_PRE_BIND,
  'unbinding',
];

/** A host in error learns why on top of what it already said, once. */
function mediaDisconnectedInError(facts: HostFacts): string {
  const reason = `Failed - ${INFO.mediaDisconnected}`;
  const current = facts.ctx.statusInfo;
  if (!current) return reason;
  return truncateStatusInfo(current.includes(reason) ? current : `${reason}. ${current}`);
}

/** host_media_disconnected names only the host's ids, which the caller's event subject carries. */
const mediaEvent = (): EventIntent => ({ name: 'host_media_disconnected', props: {} });

/** What a progress report shows as status_info: the stage itself. */
const stageInfo = (facts: HostFacts) => facts.stage ?? '';

export const HOST_REQUEST_RULES: readonly HostRule[] = [
  // ---------------------------------------------------------------- RegisterHost
  {
    id: 'register-new',
    trigger: 'RegisterHost',
    from: [''],
    when: (f) => f.bound,
    to: 'discovering',
    statusInfo: fixed(INFO.discovering),
    event: 'host_registration_succeeded',
  },
  // Rebooted during preparation: keep inventory, re-run preparation from known.
  {
    id: 'register-during-preparation',
    trigger: 'RegisterHost',
    from: ['preparing-for-installation', 'preparing-successful'],
    to: 'known',
    statusInfo: fixed(INFO.known),
    effects: effects('cluster-preparation-reset'),
  },
  // Possibly different hardware: start discovery again.
  {
    id: 'register-rediscover',
    trigger: 'RegisterHost',
    from: ['discovering', 'known', 'disconnected', 'insufficient', 'resetting-pending-user-action', 'binding', 'pending-for-input'],
    to: 'discovering',
    statusInfo: fixed(INFO.discovering),
    effects: effects('rediscover'),
  },
  // A reset raced with the reboot: the cluster monitor moves it on, so ignore this registration.
  { id: 'register-resetting-rebooting', trigger: 'RegisterHost', from: ['resetting'], when: (f) => inStage(f, 'Rebooting'), to: STAY },
  {
    id: 'register-resetting',
    trigger: 'RegisterHost',
    from: ['resetting'],
    when: (f) => !inStage(f, 'Rebooting'),
    to: 'discovering',
    statusInfo: fixed(INFO.discovering),
    effects: effects('rediscover'),
  },
  // Registering again from the discovery image after writing the disk means the boot order is wrong.
  {
    id: 'register-wrong-boot-order-again',
    trigger: 'RegisterHost',
    from: ['installing-pending-user-action'],
    when: (f) => inStage(f, 'Rebooting') || (f.day2 && inStage(f, 'Done')),
    to: 'installing-pending-user-action',
    refuse: { httpStatus: 403, reason: (f) => `Host is required to be booted from disk ${f.ctx.installationDisk?.path ?? ''}` },
  },
  {
    id: 'register-wrong-boot-order',
    trigger: 'RegisterHost',
    from: ['installing-in-progress', 'added-to-existing-cluster'],
    when: (f) => inStage(f, 'Rebooting') || (f.day2 && inStage(f, 'Done')),
    to: 'installing-pending-user-action',
    statusInfo: wrongBootOrderInfo,
  },
  {
    id: 'register-during-installation',
    trigger: 'RegisterHost',
    from: ['installing', 'installing-in-progress'],
    to: 'error',
    statusInfo: fixed(INFO.unexpectedRestart),
  },
  // Accepted without change: refusing would make the agent retry forever and break auto-reset.
  { id: 'register-in-error', trigger: 'RegisterHost', from: ['error'], to: STAY },
  {
    id: 'register-after-installation',
    trigger: 'RegisterHost',
    from: ['installed'],
    to: STAY,
    refuse: { httpStatus: 409, reason: fixed(INFO.registeredAfterInstallation) },
  },
  {
    id: 'register-new-unbound',
    trigger: 'RegisterHost',
    from: [''],
    when: (f) => !f.bound,
    to: 'discovering-unbound',
    statusInfo: fixed(INFO.discovering),
    event: 'host_registration_succeeded',
  },
  {
    id: 'register-unbound-rediscover',
    trigger: 'RegisterHost',
    from: [...POOL_PRE_BIND, 'unbinding', 'unbinding-pending-user-action', 'reclaiming-rebooting'],
    to: 'discovering-unbound',
    statusInfo: fixed(INFO.discovering),
    effects: effects('rediscover'),
  },

  // ---------------------------------------------------------------- HostProgressChanged
  // The context's progress is the stage just reported. Failed is handled before upstream's machine
  // (the progress handler sets error directly); as the first rule it has the same effect.
  {
    id: 'progress-failed',
    trigger: 'HostProgressChanged',
    from: ['installing', 'installing-in-progress', 'installing-pending-user-action'],
    when: (f) => inStage(f, 'Failed'),
    to: 'error',
    statusInfo: (f) => truncateStatusInfo(f.ctx.progress?.progressInfo ? `Failed - ${f.ctx.progress.progressInfo}` : 'Failed'),
  },
  {
    id: 'progress-day2-rebooting',
    trigger: 'HostProgressChanged',
    from: ['installing-in-progress', 'installing'],
    when: (f) => inStage(f, 'Rebooting') && f.day2,
    to: 'installing-in-progress',
    statusInfo: stageInfo,
  },
  {
    id: 'progress-day2-done',
    trigger: 'HostProgressChanged',
    from: ['installing-in-progress', 'installing', 'installing-pending-user-action'],
    when: (f) => inStage(f, 'Done') && f.day2,
    to: 'added-to-existing-cluster',
    // The REST service stops hearing from a day-2 host once it reboots; say so instead of "Done".
    statusInfo: (f) => (f.ctx.kubeApi ? stageInfo(f) : INFO.rebootingDay2),
  },
  {
    id: 'progress-done',
    trigger: 'HostProgressChanged',
    from: ['installing-in-progress', 'installing'],
    when: (f) => inStage(f, 'Done'),
    to: 'installed',
    statusInfo: stageInfo,
  },
  // Upstream also lists a "stay" rule for installing-pending-user-action; this rule always wins
  // over it (a report means the host booted correctly after all), so it is left out.
  {
    id: 'progress-in-progress',
    trigger: 'HostProgressChanged',
    from: ['installing-in-progress', 'installing', 'installing-pending-user-action'],
    to: 'installing-in-progress',
    statusInfo: stageInfo,
  },
  // Kept as upstream has it; through the API checkHostProgress refuses reports in these statuses first.
  { id: 'progress-ignored', trigger: 'HostProgressChanged', from: ['installed', 'resetting-pending-user-action'], to: STAY },

  // ---------------------------------------------------------------- install, cancel, reset
  {
    id: 'installation-failed',
    trigger: 'HostInstallationFailed',
    from: ['installing', 'installing-in-progress'],
    to: 'error',
    statusInfo: (f) => truncateStatusInfo(f.ctx.reason ?? INFO.installationCommandFailed),
  },
  {
    id: 'cancel-installation',
    trigger: 'CancelInstallation',
    from: ['installing-pending-user-action', 'installing', 'installing-in-progress', 'installed', 'error'],
    to: 'cancelled',
    statusInfo: (f) => truncateStatusInfo(f.ctx.reason ?? INFO.cancelledByUser),
    event: 'host_installation_cancelled',
  },
  {
    id: 'cancel-preparation',
    trigger: 'CancelInstallation',
    from: ['preparing-for-installation', 'preparing-successful'],
    to: 'known',
    statusInfo: (f) => truncateStatusInfo(f.ctx.reason ?? INFO.cancelledByUser),
    event: 'host_installation_cancelled',
  },
  { id: 'cancel-known', trigger: 'CancelInstallation', from: ['known'], to: STAY, event: 'host_installation_cancelled' },
  // Only hosts added to an installed cluster are installed one by one.
  {
    id: 'install-day2',
    trigger: 'InstallHost',
    from: ['known'],
    when: (f) => f.day2,
    to: 'installing',
    statusInfo: fixed(INFO.installing),
    event: 'host_installation_started',
  },
  // The service cannot reboot a host: the user boots it into the discovery image, and its
  // registration then moves it to discovering.
  {
    id: 'reset-pending-user-action',
    trigger: 'ResettingPendingUserAction',
    from: [
      'resetting',
      'discovering',
      'known',
      'installing-pending-user-action',
      'installing',
      'preparing-for-installation',
      'preparing-successful',
      'preparing-failed',
      'pending-for-input',
      'resetting-pending-user-action',
      'installing-in-progress',
      'installed',
      'error',
      'cancelled',
      'added-to-existing-cluster',
    ],
    to: 'resetting-pending-user-action',
    statusInfo: fixed(INFO.resettingPendingUserAction),
    event: (f) => ({ name: f.ctx.resetByUser ? 'host_installation_reset' : 'user_required_complete_installation_reset', props: { host_name: f.ctx.hostName } }),
  },

  // ---------------------------------------------------------------- media
  { id: 'media-already-disconnected', trigger: 'MediaDisconnect', from: MEDIA_SOURCES, when: (f) => !f.mediaConnected, to: STAY },
  {
    id: 'media-disconnected',
    trigger: 'MediaDisconnect',
    from: [...PRE_INSTALL, 'binding'],
    to: 'disconnected',
    statusInfo: fixed(INFO.mediaDisconnected),
    event: mediaEvent,
    effects: effects('media-disconnected'),
  },
  {
    id: 'media-disconnected-installing',
    trigger: 'MediaDisconnect',
    from: ['preparing-for-installation', 'preparing-failed', 'preparing-successful', 'installing', 'installing-in-progress', 'error'],
    to: 'error',
    statusInfo: (f) => (f.from === 'error' ? mediaDisconnectedInError(f) : INFO.mediaDisconnected),
    event: mediaEvent,
    effects: effects('media-disconnected'),
  },
  {
    id: 'media-disconnected-unbound',
    trigger: 'MediaDisconnect',
    from: [...POOL_PRE_BIND, 'unbinding'],
    to: 'disconnected-unbound',
    statusInfo: fixed(INFO.mediaDisconnected),
    event: mediaEvent,
    effects: effects('media-disconnected'),
  },

  // ---------------------------------------------------------------- bind, unbind, reclaim
  // Only a known-unbound host can be bound: it passed the checks a cluster will rely on.
  {
    id: 'bind',
    trigger: 'BindHost',
    from: ['known-unbound'],
    to: 'binding',
    statusInfo: fixed(INFO.binding),
    event: 'host_bind_succeeded',
    effects: effects('cluster-bound'),
  },
  {
    id: 'unbind-pre-install',
    trigger: 'UnbindHost',
    from: PRE_INSTALL,
    to: 'unbinding',
    statusInfo: fixed(INFO.unbinding),
    event: 'host_unbind_succeeded',
    effects: effects('cluster-unbound', 'logs-reset'),
  },
  // The disk may hold an installed OS: the user must boot the discovery image again. A host still
  // preparing or installing cannot be taken out of its installation (upstream's statemachine.go).
  {
    id: 'unbind-after-install-started',
    trigger: 'UnbindHost',
    from: ['installed', 'added-to-existing-cluster', 'error', 'cancelled'],
    to: 'unbinding-pending-user-action',
    statusInfo: fixed(INFO.unbinding),
    event: 'host_unbind_succeeded',
    effects: effects('cluster-unbound', 'logs-reset'),
  },
  // An installed host is rebooted into the discovery image by the service (kube-api reclaim).
  {
    id: 'reclaim-installed',
    trigger: 'ReclaimHost',
    from: ['installed', 'added-to-existing-cluster'],
    to: 'reclaiming',
    statusInfo: fixed(INFO.unbinding),
    effects: effects('cluster-unbound', 'logs-reset'),
  },
  { id: 'reclaim-rebooting', trigger: 'RebootingForReclaim', from: ['reclaiming'], to: 'reclaiming-rebooting', statusInfo: fixed(INFO.rebootingForReclaim) },
  {
    id: 'reclaim-failed',
    trigger: 'ReclaimHostFailed',
    from: ['reclaiming', 'reclaiming-rebooting'],
    to: 'unbinding-pending-user-action',
    statusInfo: fixed(INFO.unbinding),
    effects: effects('cluster-unbound', 'logs-reset'),
  },
  {
    id: 'reclaim-pre-install',
    trigger: 'ReclaimHost',
    from: PRE_INSTALL,
    to: 'unbinding',
    statusInfo: fixed(INFO.unbinding),
    effects: effects('cluster-unbound', 'logs-reset'),
  },
  {
    id: 'reclaim-after-failure',
    trigger: 'ReclaimHost',
    from: ['error', 'cancelled'],
    to: 'unbinding-pending-user-action',
    statusInfo: fixed(INFO.unbinding),
    effects: effects('cluster-unbound', 'logs-reset'),
  },
];
