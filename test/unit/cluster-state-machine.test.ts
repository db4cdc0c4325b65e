/**
 * The cluster state machine, rule by rule (each case names the rule it expects; a final test checks
 * every rule is exercised), the success rule "enough masters and workers" for each topology, and
 * the progress bar.
 */
import { describe, expect, it } from 'vitest';
import {
  CLUSTER_RULE_IDS,
  CLUSTER_STATUS_INFO,
  CLUSTER_STATUSES,
  clusterProgress,
  finalizingStageTimeoutMs,
  hasEnoughMastersAndWorkers,
  summarizeClusterValidations,
  transitionCluster,
  type ClusterEffect,
  type ClusterHostSummary,
  type ClusterStatus,
  type ClusterTransitionContext,
  type ClusterTrigger,
  type MonitoredOperatorSummary,
  type NotAllowed,
} from '../../lambdas/domain/cluster/cluster-state-machine.js';
import { ago, expectRuleCase, NOW, openapiStatuses, type RuleCaseExpectation } from '../support/rule-cases.js';

const HOURS = 60;

const hosts = (count: number, role: ClusterHostSummary['role'], status: string, extra: Partial<ClusterHostSummary> = {}): ClusterHostSummary[] =>
  Array.from({ length: count }, () => ({ role, status, ...extra }));
const ha = (masterStatus: string, workerStatus = masterStatus, workers = 2) => [...hosts(3, 'master', masterStatus), ...hosts(workers, 'worker', workerStatus)];

const ALL_VALID = { inputProvided: true, vipsDefined: true, requiredForInstall: true };
const operator = (name: string, type: 'builtin' | 'olm', status?: MonitoredOperatorSummary['status']): MonitoredOperatorSummary => ({
  name,
  type,
  ...(status ? { status } : {}),
});

/** An HA cluster (3 masters, 2 workers) one hour into its installation. */
function context(overrides: Partial<ClusterTransitionContext> = {}): ClusterTransitionContext {
  return {
    now: NOW,
    statusInfo: 'previous',
    statusUpdatedAt: ago(1),
    installStartedAt: ago(1 * HOURS),
    controlPlaneCount: 3,
    hosts: ha('installing-in-progress'),
    validations: ALL_VALID,
    ...overrides,
  };
}

interface Case extends RuleCaseExpectation<ClusterStatus, ClusterEffect> {
  name: string;
  from: ClusterStatus;
  trigger: ClusterTrigger;
  ctx?: Partial<ClusterTransitionContext>;
}

const I = CLUSTER_STATUS_INFO;
const finalizing = (stage: NonNullable<ClusterTransitionContext['finalizing']>['stage'], minutesAgo: number, extra = {}) => ({
  finalizing: { stage, stageStartedAt: ago(minutesAgo), ...extra },
});

const CASES: Case[] = [
  // user actions
  {
    name: 'cancel an installation',
    from: 'installing',
    trigger: 'CancelInstallation',
    rule: 'cancel-installation',
    to: 'cancelled',
    info: I.cancelledByUser,
    events: ['cluster_status_updated', 'cluster_installation_canceled'],
    effects: ['install-completed'],
  },
  {
    name: 'cancel while preparing',
    from: 'preparing-for-installation',
    trigger: 'CancelInstallation',
    rule: 'cancel-preparation',
    to: 'ready',
    info: I.cancelledByUser,
    effects: [],
  },
  {
    name: 'reset a failed installation',
    from: 'error',
    trigger: 'ResetCluster',
    rule: 'reset',
    to: 'insufficient',
    info: I.resetByUser,
    events: ['cluster_status_updated', 'cluster_installation_reset'],
    effects: ['progress-reset', 'logs-reset', 'preparation-reset'],
  },
  {
    name: 'install a ready cluster',
    from: 'ready',
    trigger: 'PrepareForInstallation',
    rule: 'prepare',
    to: 'preparing-for-installation',
    info: I.preparingForInstallation,
    events: ['cluster_status_updated'],
    effects: ['install-started', 'logs-reset', 'preparation-reset'],
  },

  // readiness
  {
    name: 'pull secret missing',
    from: 'insufficient',
    trigger: 'RefreshStatus',
    ctx: { validations: { ...ALL_VALID, inputProvided: false } },
    rule: 'refresh-pending-input',
    to: 'pending-for-input',
    info: I.pendingForInput,
  },
  {
    name: 'VIPs missing without DHCP',
    from: 'ready',
    trigger: 'RefreshStatus',
    ctx: { validations: { ...ALL_VALID, vipsDefined: false } },
    rule: 'refresh-pending-input',
    to: 'pending-for-input',
  },
  {
    name: 'a requirement fails',
    from: 'ready',
    trigger: 'RefreshStatus',
    ctx: { validations: { ...ALL_VALID, requiredForInstall: false } },
    rule: 'refresh-insufficient',
    to: 'insufficient',
    info: I.insufficient,
  },
  {
    name: 'input missing with DHCP',
    from: 'insufficient',
    trigger: 'RefreshStatus',
    ctx: { vipDhcpAllocation: true, validations: { ...ALL_VALID, inputProvided: false } },
    rule: 'refresh-pending-input-dhcp',
    to: 'pending-for-input',
  },
  {
    name: 'VIPs not allocated yet with DHCP',
    from: 'pending-for-input',
    trigger: 'RefreshStatus',
    ctx: { vipDhcpAllocation: true, validations: { ...ALL_VALID, vipsDefined: false } },
    rule: 'refresh-insufficient-dhcp',
    to: 'insufficient',
    info: I.insufficient,
  },
  {
    name: 'all validations pass',
    from: 'insufficient',
    trigger: 'RefreshStatus',
    rule: 'refresh-ready',
    to: 'ready',
    info: I.ready,
    events: ['cluster_status_updated'],
  },
  {
    name: 'ready stays ready',
    from: 'ready',
    trigger: 'RefreshStatus',
    ctx: { statusInfo: I.ready },
    rule: 'refresh-ready',
    to: 'ready',
    changed: false,
    events: [],
  },

  // preparing
  {
    name: 'preparation died',
    from: 'preparing-for-installation',
    trigger: 'RefreshStatus',
    ctx: { statusUpdatedAt: ago(11), hosts: ha('preparing-for-installation') },
    rule: 'refresh-preparing-timeout',
    to: 'ready',
    info: I.preparingForInstallationTimeout,
    events: ['cluster_status_updated', 'installation_preparing_timed_out'],
    effects: ['preparation-failed'],
  },
  {
    name: 'everything prepared',
    from: 'preparing-for-installation',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('preparing-successful'), lastInstallationPreparation: 'success' },
    rule: 'refresh-start-installing',
    to: 'installing',
    info: I.installing,
    effects: ['installation-started', 'preparation-complete'],
  },
  {
    name: 'a host stopped preparing',
    from: 'preparing-for-installation',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...ha('preparing-successful', 'preparing-successful', 1), ...hosts(1, 'worker', 'disconnected')] },
    rule: 'refresh-host-stopped-preparing',
    to: 'insufficient',
    info: I.unpreparingHostExists,
  },
  {
    name: 'a host failed to prepare',
    from: 'preparing-for-installation',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...ha('preparing-successful', 'preparing-successful', 1), ...hosts(1, 'worker', 'preparing-failed')] },
    rule: 'refresh-preparation-failed',
    to: 'ready',
    info: I.failedToPrepare,
  },
  {
    name: 'generating manifests failed',
    from: 'preparing-for-installation',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('preparing-successful'), lastInstallationPreparation: 'failed' },
    rule: 'refresh-preparation-failed',
    to: 'ready',
  },
  {
    name: 'still preparing',
    from: 'preparing-for-installation',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('preparing-for-installation') },
    rule: 'refresh-unchanged',
    to: 'preparing-for-installation',
    changed: false,
  },

  // installing-pending-user-action
  {
    name: 'pending user action, masters failed',
    from: 'installing-pending-user-action',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...hosts(2, 'master', 'error'), ...hosts(1, 'master', 'installing-pending-user-action')] },
    rule: 'refresh-pending-user-action-failed',
    to: 'error',
    info: I.error,
    events: ['cluster_status_updated', 'cluster_installation_failed'],
    effects: ['install-completed'],
  },
  {
    name: 'pending user action past the installation deadline',
    from: 'installing-pending-user-action',
    trigger: 'RefreshStatus',
    ctx: {
      installStartedAt: ago(25 * HOURS),
      hosts: [...ha('installing-in-progress', 'installing-in-progress', 1), ...hosts(1, 'worker', 'installing-pending-user-action')],
    },
    rule: 'refresh-pending-user-action-timeout',
    to: 'error',
    info: I.pendingUserActionTimeout,
  },
  {
    name: 'still waiting for the user',
    from: 'installing-pending-user-action',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...ha('installing-in-progress', 'installing-in-progress', 1), ...hosts(1, 'worker', 'installing-pending-user-action')] },
    rule: 'refresh-pending-user-action-waiting',
    to: 'installing-pending-user-action',
    changed: false,
  },
  {
    name: 'the user fixed the boot order',
    from: 'installing-pending-user-action',
    trigger: 'RefreshStatus',
    rule: 'refresh-pending-user-action-resolved',
    to: 'installing',
    info: I.installing,
  },
  {
    name: 'fixed, and enough hosts installed',
    from: 'installing-pending-user-action',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed') },
    rule: 'refresh-pending-user-action-finalizing',
    to: 'finalizing',
    info: I.finalizing,
    effects: ['finalizing-stage-clock-restarted'],
  },

  // installing and finalizing
  {
    name: 'soft timeouts: the installation deadline passed',
    from: 'installing',
    trigger: 'RefreshStatus',
    ctx: { softTimeoutsEnabled: true, installStartedAt: ago(25 * HOURS) },
    rule: 'refresh-installation-timeout',
    to: 'error',
    info: 'cluster installation timeout (1440 minutes) has expired',
    events: ['cluster_status_updated', 'cluster_installation_failed'],
  },
  {
    name: 'finalizing for more than 5 hours',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed'), statusUpdatedAt: ago(5 * HOURS + 1) },
    rule: 'refresh-finalizing-timeout',
    to: 'error',
    info: I.finalizingTimeout,
  },
  {
    name: 'cluster operators took over 10 hours',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed'), ...finalizing('Waiting for cluster operators', 10 * HOURS + 1), timeouts: { finalizingMs: 20 * 60 * 60_000 } },
    rule: 'refresh-finalizing-stage-timeout',
    to: 'error',
    info: "Cluster finalizing stage 'Waiting for cluster operators' has been timed out after timeout duration of 600 minutes",
  },
  {
    name: 'OLM manifests overdue: only a warning',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed'), ...finalizing('Applying olm manifests', 11) },
    rule: 'refresh-finalizing-stage-soft-timeout',
    to: 'finalizing',
    info: "Cluster finalizing stage 'Applying olm manifests' is taking longer than the expected duration (10 minutes). To troubleshoot use kubeconfig or connect to any node using ssh",
    events: ['finalizing_stage_timed_out'],
    effects: ['finalizing-stage-timed-out'],
  },
  {
    name: 'soft timeouts: cluster operators overdue after 70 minutes',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { softTimeoutsEnabled: true, hosts: ha('installed'), ...finalizing('Waiting for cluster operators', 71) },
    rule: 'refresh-finalizing-stage-soft-timeout',
    to: 'finalizing',
  },
  {
    name: 'a host needs the user',
    from: 'installing',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...ha('installing-in-progress', 'installing-in-progress', 1), ...hosts(1, 'worker', 'installing-pending-user-action')] },
    rule: 'refresh-host-pending-user-action',
    to: 'installing-pending-user-action',
    info: I.installingPendingUserAction,
  },
  {
    name: 'a host needs the user while finalizing',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...ha('installed', 'installed', 2), ...hosts(1, 'worker', 'installing-pending-user-action')] },
    rule: 'refresh-host-pending-user-action',
    to: 'installing-pending-user-action',
  },
  {
    name: 'masters and 2 of 3 workers installed',
    from: 'installing',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...ha('installed'), ...hosts(1, 'worker', 'installing-in-progress')] },
    rule: 'refresh-finalizing',
    to: 'finalizing',
    info: I.finalizing,
  },
  { name: 'installing', from: 'installing', trigger: 'RefreshStatus', rule: 'refresh-installing', to: 'installing', info: I.installing, events: [] },
  {
    name: 'SaaS: the console is up, tell AMS',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed'), amsConsoleUrlPending: true },
    rule: 'refresh-ams-console-url',
    to: 'finalizing',
    effects: ['ams-console-url-updated'],
  },
  {
    name: 'installed',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed'), kubeconfigExists: true, monitoredOperators: [operator('console', 'builtin', 'available')] },
    rule: 'refresh-installed',
    to: 'installed',
    info: I.installed,
    events: ['cluster_status_updated', 'cluster_installation_completed'],
    effects: ['progress-complete', 'install-completed'],
  },
  {
    name: 'installed without monitored operators (older clusters)',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed'), kubeconfigExists: true },
    rule: 'refresh-installed',
    to: 'installed',
  },
  {
    name: 'installed but degraded',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: {
      hosts: ha('installed'),
      kubeconfigExists: true,
      monitoredOperators: [operator('console', 'builtin', 'available'), operator('lvm', 'olm', 'failed'), operator('cnv', 'olm', 'failed')],
    },
    rule: 'refresh-installed',
    to: 'installed',
    info: 'Cluster is installed but degraded. Failed OLM operators: lvm, cnv',
    events: ['cluster_status_updated', 'cluster_degraded_OLM_operators_failed', 'cluster_installation_completed'],
  },
  {
    name: 'installed but a worker did not join',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...ha('installed'), ...hosts(1, 'worker', 'error')], kubeconfigExists: true },
    rule: 'refresh-installed',
    to: 'installed',
    info: I.notAllWorkersInstalled,
  },
  {
    name: 'a master failed',
    from: 'installing',
    trigger: 'RefreshStatus',
    ctx: { hosts: [...hosts(2, 'master', 'installed'), ...hosts(1, 'master', 'error'), ...hosts(2, 'worker', 'installed')] },
    rule: 'refresh-installing-failed',
    to: 'error',
    info: I.error,
    events: ['cluster_status_updated', 'cluster_installation_failed'],
  },

  // final and other states
  {
    name: 'nobody collected the logs',
    from: 'error',
    trigger: 'RefreshStatus',
    ctx: { statusUpdatedAt: ago(11) },
    rule: 'refresh-logs-timeout',
    to: 'error',
    effects: ['logs-timed-out'],
  },
  {
    name: 'waiting for the kubeconfig',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed') },
    rule: 'refresh-unchanged',
    to: 'finalizing',
    changed: false,
  },
  {
    name: 'waiting for operators',
    from: 'finalizing',
    trigger: 'RefreshStatus',
    ctx: { hosts: ha('installed'), kubeconfigExists: true, monitoredOperators: [operator('console', 'builtin', 'progressing')] },
    rule: 'refresh-unchanged',
    to: 'finalizing',
  },
  { name: 'installed stays', from: 'installed', trigger: 'RefreshStatus', rule: 'refresh-unchanged', to: 'installed' },
  { name: 'cancelled stays', from: 'cancelled', trigger: 'RefreshStatus', ctx: { logs: { info: 'completed' } }, rule: 'refresh-unchanged', to: 'cancelled' },
  { name: 'adding hosts stays', from: 'adding-hosts', trigger: 'RefreshStatus', rule: 'refresh-unchanged', to: 'adding-hosts' },
  { name: 'unmonitored stays', from: 'unmonitored', trigger: 'RefreshStatus', rule: 'refresh-unchanged', to: 'unmonitored' },
];

const CLUSTER_ID = '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01';

describe('cluster state machine: every rule', () => {
  const hits = new Set<string>();

  it.each(CASES)('$from --$trigger--> $to: $name', (c) => {
    expectRuleCase(transitionCluster({ status: c.from }, c.trigger, context(c.ctx)), c, hits, () => ({ orgId: 'org', clusterId: CLUSTER_ID }));
  });

  it('exercises every rule of the table', () => {
    expect(CLUSTER_RULE_IDS.filter((id) => !hits.has(id))).toEqual([]);
  });
});

describe('cluster state machine: not allowed', () => {
  const refused: [ClusterStatus, ClusterTrigger][] = [
    ['insufficient', 'PrepareForInstallation'],
    ['installing', 'PrepareForInstallation'],
    ['ready', 'CancelInstallation'],
    ['installed', 'CancelInstallation'],
    ['installed', 'ResetCluster'],
    ['ready', 'ResetCluster'],
  ];
  it.each(refused)('%s --%s--> not allowed', (from, trigger) => {
    const result = transitionCluster({ status: from }, trigger, context());
    expect(result).toMatchObject({ notAllowed: true, httpStatus: 409, trigger, from });
    expect((result as NotAllowed).reason).toBe(`${trigger} is not allowed for a cluster in status ${from}`);
  });
});

describe('hasEnoughMastersAndWorkers', () => {
  const installed = ['installed'];
  const cases: [string, ClusterHostSummary[], number, boolean][] = [
    ['SNO: one master', hosts(1, 'master', 'installed'), 1, true],
    ['SNO: a worker is never allowed', [...hosts(1, 'master', 'installed'), ...hosts(1, 'worker', 'installed')], 1, false],
    ['SNO: the master not installed', hosts(1, 'master', 'installing'), 1, false],
    ['SNO: the bootstrap role counts as master', hosts(1, 'bootstrap', 'installed'), 1, true],
    ['HA: 3 masters, no workers', hosts(3, 'master', 'installed'), 3, true],
    ['HA: a master missing', [...hosts(2, 'master', 'installed'), ...hosts(1, 'master', 'error')], 3, false],
    ['HA: only 2 masters assigned', hosts(2, 'master', 'installed'), 3, false],
    ['HA: 2 of 2 workers', ha('installed'), 3, true],
    ['HA: 2 of 3 workers suffice', [...ha('installed'), ...hosts(1, 'worker', 'error')], 3, true],
    ['HA: 1 of 2 workers is not enough', [...hosts(3, 'master', 'installed'), ...hosts(1, 'worker', 'installed'), ...hosts(1, 'worker', 'error')], 3, false],
    ['HA: a single worker is not required (masters schedulable)', [...hosts(3, 'master', 'installed'), ...hosts(1, 'worker', 'error')], 3, true],
    ['HA 4.18+: 4 masters', hosts(4, 'master', 'installed'), 4, true],
    ['HA 4.18+: 5 masters', [...hosts(5, 'master', 'installed'), ...hosts(2, 'worker', 'installed')], 5, true],
    ['HA 4.18+: every assigned master must install', [...hosts(4, 'master', 'installed'), ...hosts(1, 'master', 'error')], 5, false],
    ['arbiter: 2 masters and the arbiter', [...hosts(2, 'master', 'installed'), ...hosts(1, 'arbiter', 'installed')], 2, true],
    ['arbiter: the arbiter must install too', [...hosts(2, 'master', 'installed'), ...hosts(1, 'arbiter', 'error')], 2, false],
    ['two nodes with fencing', hosts(2, 'master', 'installed', { hasFencingCredentials: true }), 2, true],
    ['two masters without fencing or arbiter', hosts(2, 'master', 'installed'), 2, false],
    ['auto-assign hosts are not expected masters', hosts(3, 'auto-assign', 'installed', { suggestedRole: 'master' }), 3, false],
  ];
  it.each(cases)('%s', (_name, clusterHosts, controlPlaneCount, expected) => {
    expect(hasEnoughMastersAndWorkers(clusterHosts, controlPlaneCount, installed)).toBe(expected);
  });

  it('counts several statuses at once', () => {
    const mixed = [
      ...hosts(1, 'master', 'installed'),
      ...hosts(1, 'master', 'installing-in-progress'),
      ...hosts(1, 'master', 'installing-pending-user-action'),
    ];
    expect(hasEnoughMastersAndWorkers(mixed, 3, ['installed'])).toBe(false);
    expect(hasEnoughMastersAndWorkers(mixed, 3, ['installed', 'installing-in-progress', 'installing-pending-user-action'])).toBe(true);
  });
});

describe('clusterProgress', () => {
  it('is 0 while preparing', () => {
    expect(
      clusterProgress({
        status: 'preparing-for-installation',
        hosts: hosts(1, 'master', 'preparing-for-installation'),
        singleNode: true,
        monitoredOperators: [],
      }).total_percentage,
    ).toBe(0);
  });

  it('weights preparing 0.1 and installing 0.7', () => {
    // A single node at "Writing image to disk": 4 of its 8 stages.
    const progress = clusterProgress({
      status: 'installing',
      hosts: [{ role: 'master', bootstrap: true, status: 'installing-in-progress', currentStage: 'Writing image to disk' }],
      singleNode: true,
      monitoredOperators: [],
    });
    expect(progress).toEqual({
      preparing_for_installation_stage_percentage: 100,
      installing_stage_percentage: 50,
      finalizing_stage_percentage: 0,
      total_percentage: 45,
    });
  });

  it('adds finalizing at 0.15, counting failed OLM operators as done', () => {
    const progress = clusterProgress({
      status: 'finalizing',
      hosts: hosts(1, 'master', 'installed', { bootstrap: true, currentStage: 'Done' }),
      singleNode: true,
      monitoredOperators: [
        operator('console', 'builtin', 'available'),
        operator('ingress', 'builtin', 'available'),
        operator('lvm', 'olm', 'failed'),
        operator('cnv', 'olm', 'progressing'),
      ],
    });
    expect(progress).toEqual({
      preparing_for_installation_stage_percentage: 100,
      installing_stage_percentage: 100,
      finalizing_stage_percentage: 75,
      total_percentage: 91,
    });
  });

  it('never goes down, and is 100 once installed', () => {
    const input = { hosts: hosts(3, 'master', 'installing-in-progress', { currentStage: 'Installing' as const }), singleNode: false, monitoredOperators: [] };
    expect(clusterProgress({ ...input, status: 'installing', previous: { total_percentage: 60 } }).total_percentage).toBe(60);
    expect(clusterProgress({ ...input, status: 'installed' })).toMatchObject({ total_percentage: 100, finalizing_stage_percentage: 100 });
  });
});

describe('cluster vocabulary and inputs', () => {
  it('has exactly the statuses of the openapi cluster schema', () => {
    expect([...CLUSTER_STATUSES]).toEqual(openapiStatuses('cluster'));
  });

  it("gives OLM stages at least the slowest OLM operator's timeout", () => {
    const operators = [
      operator('cnv', 'olm'),
      { ...operator('odf', 'olm'), timeoutSeconds: 7200 },
      { ...operator('console', 'builtin'), timeoutSeconds: 99_999 },
    ];
    expect(finalizingStageTimeoutMs('Waiting for olm operators csv', operators, false)).toBe(2 * 60 * 60_000);
    expect(finalizingStageTimeoutMs('Waiting for cluster operators', operators, false)).toBe(10 * 60 * 60_000);
    expect(finalizingStageTimeoutMs('Waiting for cluster operators', operators, true)).toBe(70 * 60_000);
  });

  it('summarises validations into input, VIPs and requirements', () => {
    const pass = (id: string) => ({ id, status: 'success' as const, message: '' });
    const summary = summarizeClusterValidations(
      [
        ...['machine-cidr-defined', 'cluster-cidr-defined', 'service-cidr-defined', 'dns-domain-defined', 'pull-secret-set', 'api-vips-defined'].map(pass),
        { id: 'ingress-vips-defined', status: 'failure', message: 'Ingress VIPs are undefined' },
        { id: 'ntp-server-configured', status: 'failure', message: 'clock skew' },
      ],
      '["ntp-server-configured"]',
    );
    expect(summary).toEqual({ inputProvided: true, vipsDefined: false, requiredForInstall: false });
  });
});
