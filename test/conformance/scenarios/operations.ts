/**
 * Every operation with a valid and an invalid request (the ones the other files do not already
 * cover), day-2 import, v2TriggerEvent and event queries. Operations that exist only here
 * (API tokens, organisations) are not sent: upstream has no such operation.
 */
import { del, get, patch, post, put, settle, type RequestStep, type Scenario, type Step } from '../scenario.js';
import { clusterBody, clusterLifecycle, clusterWithInfraEnv, PULL_SECRET } from './common.js';

const UNKNOWN = '0f0f0f0f-0000-4000-8000-000000000000';

export function operationScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  const add = (id: string, area: string, steps: Step[], hosts?: number) => scenarios.push({ id: `operations/${id}`, area, steps, ...(hosts ? { hosts } : {}) });
  const withCluster = (id: string, steps: Step[], fields = {}) => add(id, 'operations', [...clusterWithInfraEnv(clusterBody(fields)), ...steps]);

  // Reads of what does not exist, and of malformed ids.
  for (const [op, path] of [
    ['v2GetCluster', `/clusters/${UNKNOWN}`],
    ['v2GetCluster', '/clusters/not-a-uuid'],
    ['GetInfraEnv', `/infra-envs/${UNKNOWN}`],
    ['GetInfraEnv', '/infra-envs/not-a-uuid'],
    ['v2GetHost', `/infra-envs/${UNKNOWN}/hosts/${UNKNOWN}`],
    ['v2ListHosts', `/infra-envs/${UNKNOWN}/hosts`],
    ['ListClusterHosts', `/clusters/${UNKNOWN}/hosts`],
    ['v2GetClusterInstallConfig', `/clusters/${UNKNOWN}/install-config`],
    ['V2ListClusterManifests', `/clusters/${UNKNOWN}/manifests`],
    ['v2GetIgnoredValidations', `/clusters/${UNKNOWN}/ignored-validations`],
    ['v2GetPreflightRequirements', `/clusters/${UNKNOWN}/preflight-requirements`],
    ['GetClusterSupportedPlatforms', `/clusters/${UNKNOWN}/supported-platforms`],
    ['V2GetClusterUISettings', `/clusters/${UNKNOWN}/ui-settings`],
    ['V2GetCredentials', `/clusters/${UNKNOWN}/credentials`],
    ['GetInfraEnvDownloadURL', `/infra-envs/${UNKNOWN}/downloads/image-url`],
    ['v2ListEvents', `/events?cluster_id=${UNKNOWN}`],
    ['v2ListEvents', '/events?cluster_id=not-a-uuid'],
    ['v2ListEvents', `/events?infra_env_id=${UNKNOWN}`],
    ['v2ListClusters', '/clusters?name=no-such-cluster'],
    ['ListInfraEnvs', `/infra-envs?cluster_id=${UNKNOWN}`],
  ] as const)
    add(`missing/${op}/${path}`, 'operations', [get(op, path)]);
  for (const [op, method, path] of [
    ['v2DeregisterCluster', 'DELETE', `/clusters/${UNKNOWN}`],
    ['DeregisterInfraEnv', 'DELETE', `/infra-envs/${UNKNOWN}`],
    ['V2UpdateCluster', 'PATCH', `/clusters/${UNKNOWN}`],
    ['UpdateInfraEnv', 'PATCH', `/infra-envs/${UNKNOWN}`],
    ['v2InstallCluster', 'POST', `/clusters/${UNKNOWN}/actions/install`],
    ['v2ResetCluster', 'POST', `/clusters/${UNKNOWN}/actions/reset`],
    ['V2CancelInstallation', 'POST', `/clusters/${UNKNOWN}/actions/cancel`],
    ['TransformClusterToDay2', 'POST', `/clusters/${UNKNOWN}/actions/allow-add-workers`],
  ] as const)
    add(`missing/${op}`, 'operations', [{ op, method, path, ...(method === 'PATCH' ? { body: {} } : {}) }]);

  // Malformed bodies on the create and update operations.
  for (const [op, method, path] of [
    ['v2RegisterCluster', 'POST', '/clusters'],
    ['RegisterInfraEnv', 'POST', '/infra-envs'],
    ['v2ImportCluster', 'POST', '/clusters/import'],
    ['v2TriggerEvent', 'POST', '/events'],
  ] as const) {
    // v2TriggerEvent is the agent's (an infra-env first); the others the user's.
    const setup = op === 'v2TriggerEvent' ? clusterWithInfraEnv(clusterBody()) : [];
    for (const [name, raw] of [
      ['not-json', '{bad'],
      ['array', '[]'],
      ['string', '"x"'],
      ['empty', ''],
    ] as const)
      add(`malformed/${op}/${name}`, 'operations', [...setup, { op, method, path, raw }]);
  }
  for (const [name, raw] of [
    ['not-json', '{bad'],
    ['array', '[]'],
  ] as const) {
    withCluster(`malformed/V2UpdateCluster/${name}`, [{ op: 'V2UpdateCluster', method: 'PATCH', path: '/clusters/{{cluster}}', raw }]);
    withCluster(`malformed/UpdateInfraEnv/${name}`, [{ op: 'UpdateInfraEnv', method: 'PATCH', path: '/infra-envs/{{infraEnv}}', raw }]);
  }

  // Lists.
  withCluster('list/clusters', [
    get('v2ListClusters', '/clusters?name={{cluster}}'),
    get('ListInfraEnvs', '/infra-envs?cluster_id={{cluster}}'),
    get('v2GetCluster', '/clusters/{{cluster}}?exclude-hosts=true'),
  ]);

  // Cluster actions on a cluster that is not ready: both refuse, with which code?
  for (const [op, path] of [
    ['v2InstallCluster', 'actions/install'],
    ['V2CancelInstallation', 'actions/cancel'],
    ['v2ResetCluster', 'actions/reset'],
    ['TransformClusterToDay2', 'actions/allow-add-workers'],
    ['TransformClusterToAddingHosts', 'actions/allow-add-hosts'],
  ] as const)
    withCluster(`actions/${op}`, [post(op, `/clusters/{{cluster}}/${path}`), settle()]);
  // Downloads and credentials before installation.
  for (const file of ['install-config.yaml', 'kubeconfig', 'kubeconfig-noingress', 'bootstrap.ign', 'nonsense']) {
    withCluster(`downloads/${file}`, [
      get('V2DownloadClusterFiles', `/clusters/{{cluster}}/downloads/files?file_name=${file}`, { compare: 'status' }),
      get('V2GetPresignedForClusterFiles', `/clusters/{{cluster}}/downloads/files-presigned?file_name=${file}`),
    ]);
  }
  for (const file of ['kubeconfig', 'kubeadmin-password', 'nonsense']) {
    withCluster(`credentials/${file}`, [
      get('V2DownloadClusterCredentials', `/clusters/{{cluster}}/downloads/credentials?file_name=${file}`, { compare: 'status' }),
      get('V2GetPresignedForClusterCredentials', `/clusters/{{cluster}}/downloads/credentials-presigned?file_name=${file}`),
    ]);
  }
  withCluster('credentials/get', [get('V2GetCredentials', '/clusters/{{cluster}}/credentials')]);
  withCluster('logs/download', [get('V2DownloadClusterLogs', '/clusters/{{cluster}}/logs', { compare: 'status' })]);
  withCluster('minimal-initrd', [get('DownloadMinimalInitrd', '/infra-envs/{{infraEnv}}/downloads/minimal-initrd', { compare: 'status' })]);
  // Agent and controller reports outside installation.
  const agentSteps: [string, RequestStep][] = [
    ['progress', put('v2UpdateClusterFinalizingProgress', '/clusters/{{cluster}}/progress', { finalizing_stage: 'Waiting for cluster operators' })],
    ['progress-invalid', put('v2UpdateClusterFinalizingProgress', '/clusters/{{cluster}}/progress', { finalizing_stage: 'nonsense' })],
    [
      'ingress-cert',
      post('v2UploadClusterIngressCert', '/clusters/{{cluster}}/uploads/ingress-cert', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'),
    ],
    ['complete', post('v2CompleteInstallation', '/clusters/{{cluster}}/actions/complete-installation', { is_success: true })],
    ['complete-invalid', post('v2CompleteInstallation', '/clusters/{{cluster}}/actions/complete-installation', { nonsense: 1 })],
    ['logs-progress', put('v2UpdateClusterLogsProgress', '/clusters/{{cluster}}/logs-progress', { logs_state: 'requested' })],
    ['logs-progress-invalid', put('v2UpdateClusterLogsProgress', '/clusters/{{cluster}}/logs-progress', { logs_state: 'bogus' })],
    [
      'operator-report',
      put('v2ReportMonitoredOperatorStatus', '/clusters/{{cluster}}/monitored-operators', { name: 'console', status: 'available', status_info: 'ok' }),
    ],
    [
      'operator-report-unknown',
      put('v2ReportMonitoredOperatorStatus', '/clusters/{{cluster}}/monitored-operators', { name: 'no-such-operator', status: 'available' }),
    ],
    ['operator-report-invalid', put('v2ReportMonitoredOperatorStatus', '/clusters/{{cluster}}/monitored-operators', { name: 'console', status: 'bogus' })],
  ];
  // Settled first: several answers are the whole cluster, which we judge at creation and upstream's
  // monitor only on its first pass after it (a read before that pass finds it unjudged).
  for (const [name, step] of agentSteps)
    withCluster(`agent-reports/${name}`, [settle(), { ...step, agentOf: '{{infraEnv}}' }, get('v2GetCluster', '/clusters/{{cluster}}')]);
  withCluster('monitored-operators/by-name', [
    get('V2ListOfClusterOperators', '/clusters/{{cluster}}/monitored-operators?operator_name=console'),
    get('V2ListOfClusterOperators', '/clusters/{{cluster}}/monitored-operators?operator_name=nope'),
  ]);
  const hostReports: [string, RequestStep][] = [
    ['install-progress', put('v2UpdateHostInstallProgress', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/progress', { current_stage: 'Starting installation' })],
    ['install-progress-invalid', put('v2UpdateHostInstallProgress', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/progress', { current_stage: 'Nonsense stage' })],
    ['logs-progress', put('v2UpdateHostLogsProgress', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/logs-progress', { logs_state: 'collecting' })],
  ];
  for (const [name, step] of hostReports) {
    add(
      `agent-reports/host/${name}`,
      'operations',
      [
        ...clusterWithInfraEnv(clusterBody()),
        post('v2RegisterHost', '/infra-envs/{{infraEnv}}/hosts', { host_id: '{{host0}}' }, { agentOf: '{{infraEnv}}', setup: true }),
        { ...step, agentOf: '{{infraEnv}}' },
        // The host as both services judged it: ours at registration, upstream's monitor a pass later.
        settle(),
        get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'),
      ],
      1,
    );
  }
  // Deletion, and reads after it.
  withCluster('delete/cluster', [
    del('v2DeregisterCluster', '/clusters/{{cluster}}'),
    get('v2GetCluster', '/clusters/{{cluster}}'),
    get('GetInfraEnv', '/infra-envs/{{infraEnv}}'),
  ]);
  withCluster('delete/infra-env', [del('DeregisterInfraEnv', '/infra-envs/{{infraEnv}}'), get('GetInfraEnv', '/infra-envs/{{infraEnv}}')]);

  // Day 2: import of an installed cluster, then what it is.
  const imports: [string, object][] = [
    ['valid', { name: 'imported', openshift_cluster_id: 'b2f0c1a4-3c57-4a1f-9d2e-6f5a8e7c9d10', api_vip_dnsname: 'api.imported.example.com' }],
    [
      'with-version',
      {
        name: 'imported',
        openshift_cluster_id: 'b2f0c1a4-3c57-4a1f-9d2e-6f5a8e7c9d11',
        api_vip_dnsname: 'api.imported.example.com',
        openshift_version: '4.18',
      },
    ],
    ['no-dns-name', { name: 'imported', openshift_cluster_id: 'b2f0c1a4-3c57-4a1f-9d2e-6f5a8e7c9d12' }],
    ['no-openshift-id', { name: 'imported', api_vip_dnsname: 'api.imported.example.com' }],
    ['bad-openshift-id', { name: 'imported', openshift_cluster_id: 'x', api_vip_dnsname: 'api.imported.example.com' }],
    ['no-name', { openshift_cluster_id: 'b2f0c1a4-3c57-4a1f-9d2e-6f5a8e7c9d13', api_vip_dnsname: 'api.imported.example.com' }],
    ['ip-dns-name', { name: 'imported', openshift_cluster_id: 'b2f0c1a4-3c57-4a1f-9d2e-6f5a8e7c9d14', api_vip_dnsname: '192.168.111.5' }],
  ];
  for (const [name, body] of imports) {
    add(`import/${name}`, 'day-2 and events', [
      post('v2ImportCluster', '/clusters/import', body, { save: { cluster: 'id' } }),
      settle(),
      get('v2GetCluster', '/clusters/{{cluster}}'),
      post('RegisterInfraEnv', '/infra-envs', { name: 'day2', pull_secret: PULL_SECRET, cluster_id: '{{cluster}}' }, { save: { infraEnv: 'id' } }),
      patch('V2UpdateCluster', '/clusters/{{cluster}}', { pull_secret: PULL_SECRET }),
      get('v2ListEvents', '/events?cluster_id={{cluster}}', { compare: 'event-names' }),
    ]);
  }
  // v2TriggerEvent: events a client (the installer controller) records.
  const events: [string, object][] = [
    [
      'cluster',
      {
        cluster_id: '{{cluster}}',
        name: 'conformance_event',
        message: 'Conformance event',
        severity: 'info',
        category: 'user',
        event_time: '2026-01-01T00:00:00Z',
      },
    ],
    [
      'host',
      {
        cluster_id: '{{cluster}}',
        host_id: '{{host0}}',
        name: 'conformance_host_event',
        message: 'Host event',
        severity: 'warning',
        category: 'user',
        event_time: '2026-01-01T00:00:00Z',
      },
    ],
    [
      'infra-env',
      { infra_env_id: '{{infraEnv}}', name: 'conformance_event', message: 'x', severity: 'error', category: 'user', event_time: '2026-01-01T00:00:00Z' },
    ],
    ['no-message', { cluster_id: '{{cluster}}', severity: 'info', category: 'user', event_time: '2026-01-01T00:00:00Z' }],
    ['bad-severity', { cluster_id: '{{cluster}}', message: 'x', severity: 'loud', category: 'user', event_time: '2026-01-01T00:00:00Z' }],
    ['no-target', { message: 'x', severity: 'info', category: 'user', event_time: '2026-01-01T00:00:00Z' }],
    ['metrics-category', { cluster_id: '{{cluster}}', message: 'x', severity: 'info', category: 'metrics', event_time: '2026-01-01T00:00:00Z' }],
    ['unknown-cluster', { cluster_id: UNKNOWN, message: 'x', severity: 'info', category: 'user', event_time: '2026-01-01T00:00:00Z' }],
  ];
  // A message longer than upstream's column (docs/compatibility.md, triggered-event-message-limit), and a host nobody registered (trigger-event-outside-reach).
  events.push([
    'message-too-long',
    { cluster_id: '{{cluster}}', message: 'm'.repeat(5_000), severity: 'info', category: 'user', event_time: '2026-01-01T00:00:00Z' },
  ]);
  for (const [name, body] of events) {
    add(
      `trigger-event/${name}`,
      'day-2 and events',
      [
        ...clusterWithInfraEnv(clusterBody()),
        // The host an event names is one the agent registered (an unknown one is trigger-event/unregistered-host).
        post(
          'v2RegisterHost',
          '/infra-envs/{{infraEnv}}/hosts',
          { host_id: '{{host0}}', discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:latest' },
          { agentOf: '{{infraEnv}}', setup: true },
        ),
        // Both judge the new host before the events are listed: the validation events are then the same.
        settle(),
        post('v2TriggerEvent', '/events', body),
        get('v2ListEvents', '/events?cluster_id={{cluster}}', { compare: 'event-names' }),
        get('v2ListEvents', '/events?cluster_id={{cluster}}&severities=warning&severities=error', { compare: 'event-names' }),
      ],
      1,
    );
  }
  // An event about a host nobody registered: not listed after, since only upstream records it.
  add(
    'trigger-event/unregistered-host',
    'day-2 and events',
    [
      ...clusterWithInfraEnv(clusterBody()),
      post('v2TriggerEvent', '/events', {
        cluster_id: '{{cluster}}',
        host_id: '{{host0}}',
        message: 'x',
        severity: 'info',
        category: 'user',
        event_time: '2026-01-01T00:00:00Z',
      }),
    ],
    1,
  );
  // Event queries.
  for (const query of [
    '&limit=1',
    '&offset=1',
    '&order=descending',
    '&severities=info',
    '&categories=user',
    '&message=registered',
    '&cluster_level=true',
    '&deleted_hosts=true',
    '&limit=-1',
    '&order=sideways',
    '&severities=loud',
  ]) {
    scenarios.push({
      id: `operations/events/query${query}`,
      area: 'day-2 and events',
      steps: clusterLifecycle(clusterBody(), [get('v2ListEvents', `/events?cluster_id={{cluster}}${query}`, { compare: 'event-names' })]),
    });
  }
  // Every event of the service: what it holds depends on every other scenario running, so only the status is compared.
  add('events/no-filter', 'day-2 and events', [get('v2ListEvents', '/events', { compare: 'status' })]);
  // Disconnected cluster registration.
  for (const [name, body] of [
    ['valid', { name: 'disco', openshift_version: '4.22.9' }],
    ['no-version', { name: 'disco' }],
  ] as const) {
    add(`disconnected/${name}`, 'operations', [
      post('v2RegisterDisconnectedCluster', '/clusters/disconnected', body, { save: { cluster: 'id' } }),
      get('v2GetCluster', '/clusters/{{cluster}}'),
    ]);
  }
  return scenarios;
}
