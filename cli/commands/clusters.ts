/** `assisted clusters …`, `wait` and `kubeconfig`: the commands about one cluster or all of them. */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import YAML from 'yaml';
import { call, resolveClusterId, type Cluster, type ClusterCreateParams, type ClusterUpdateParams, type Host } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { openChangeFeed } from '../live.js';
import { note, print } from '../output.js';
import { clientAndId, clusterRow, failingValidations, hostname, parseDuration, printEvent, readParams, readText, type Cli } from './shared.js';

/** `clusters list|create|update|show|delete|install|cancel|reset` */
export function registerClusters(program: Command, cli: Cli): void {
  const clusters = program.command('clusters').description('list, create, update, show, delete, install, cancel and reset clusters');

  clusters
    .command('list')
    .description('list clusters')
    .action(async () => {
      const list = await call('listing clusters', () => cli.client().GET('/v2/clusters'));
      print(cli.format(), list, (rows) => ({ header: ['ID', 'NAME', 'VERSION', 'STATUS', 'HOSTS', 'INFO'], rows: rows.map(clusterRow) }));
    });

  clusters
    .command('create')
    .description('register a cluster')
    .requiredOption('--name <name>', 'cluster name')
    .requiredOption('--base-domain <domain>', 'base DNS domain')
    .option('--openshift-version <version>', 'OpenShift version (default: the service default)')
    .requiredOption('--pull-secret-file <file>', 'pull secret JSON file ("-" for stdin)')
    .option('--ssh-key-file <file>', 'SSH public key file for the hosts')
    .option('--sno', 'single node (control plane count 1, user-managed networking)')
    .option('--control-plane-count <n>', 'control plane nodes: 1 (single node), 2, 3, 4 or 5')
    .option('--api-vip <ip...>', 'API VIP(s)')
    .option('--ingress-vip <ip...>', 'ingress VIP(s)')
    .option('--machine-network <cidr...>', 'machine network CIDR(s)')
    .option('--cpu-architecture <arch>', 'x86_64, arm64, ppc64le, s390x or multi')
    .option('--params <file>', 'JSON/YAML file of further cluster-create-params (merged; flags win)')
    .action(async (options: Record<string, string | string[] | boolean | undefined>) => {
      const api = cli.client();
      let version = options.openshiftVersion as string | undefined;
      if (!version) {
        const versions = await call('listing OpenShift versions', () => api.GET('/v2/openshift-versions'));
        version = Object.entries(versions).find(([, v]) => v.default)?.[0];
        if (!version) throw new CliError('the service names no default OpenShift version: give --openshift-version', EXIT.usage);
      }
      const controlPlane = options.sno ? 1 : options.controlPlaneCount ? Number(options.controlPlaneCount) : undefined;
      if (controlPlane !== undefined && !Number.isInteger(controlPlane)) throw new CliError('--control-plane-count must be an integer', EXIT.usage);
      const body = {
        ...readParams(options.params as string | undefined),
        name: options.name as string,
        base_dns_domain: options.baseDomain as string,
        openshift_version: version,
        pull_secret: readText(options.pullSecretFile as string, 'pull secret file').trim(),
        ...(options.sshKeyFile ? { ssh_public_key: readText(options.sshKeyFile as string, 'SSH key file').trim() } : {}),
        ...(controlPlane !== undefined ? { control_plane_count: controlPlane, high_availability_mode: controlPlane === 1 ? 'None' : 'Full' } : {}),
        ...(controlPlane === 1 ? { user_managed_networking: true } : {}),
        ...(options.apiVip ? { api_vips: (options.apiVip as string[]).map((ip) => ({ ip })) } : {}),
        ...(options.ingressVip ? { ingress_vips: (options.ingressVip as string[]).map((ip) => ({ ip })) } : {}),
        ...(options.machineNetwork ? { machine_networks: (options.machineNetwork as string[]).map((cidr) => ({ cidr })) } : {}),
        ...(options.cpuArchitecture ? { cpu_architecture: options.cpuArchitecture } : {}),
      } as ClusterCreateParams;
      const cluster = await call(`registering cluster ${body.name}`, () => api.POST('/v2/clusters', { body }));
      print(cli.format(), cluster, (c) => ({ header: ['ID', 'NAME', 'VERSION', 'STATUS', 'HOSTS', 'INFO'], rows: [clusterRow(c)] }));
    });

  clusters
    .command('update <cluster>')
    .description("change a cluster's settings (id or name): networks, VIPs, SSH key, proxy, NTP, name…")
    .option('--name <name>', 'new cluster name')
    .option('--base-domain <domain>', 'base DNS domain')
    .option('--ssh-key-file <file>', 'SSH public key file for the hosts')
    .option('--api-vip <ip...>', 'API VIP(s); --api-vip none removes them')
    .option('--ingress-vip <ip...>', 'ingress VIP(s); --ingress-vip none removes them')
    .option('--machine-network <cidr...>', 'machine network CIDR(s); --machine-network none removes them')
    .option('--cluster-network <cidr>', 'cluster (pod) network CIDR')
    .option('--cluster-network-host-prefix <n>', 'cluster network host prefix')
    .option('--service-network <cidr>', 'service network CIDR')
    .option('--http-proxy <url>', 'HTTP proxy')
    .option('--https-proxy <url>', 'HTTPS proxy')
    .option('--proxy-exceptions <list>', 'comma-separated hosts and networks that bypass the proxy (no_proxy)')
    .option('--ntp-source <list>', 'additional NTP sources, comma-separated')
    .option('--user-managed-networking <bool>', 'true or false')
    .option('--params <file>', 'JSON/YAML file of further v2-cluster-update-params (merged; flags win)')
    .action(async (idOrName: string, options: Record<string, string | string[] | undefined>) => {
      const { api, id } = await clientAndId(cli, idOrName, resolveClusterId);
      const list = (values: string[] | undefined) => (values && !(values.length === 1 && values[0] === 'none') ? values : []);
      const flag = (name: string) => options[name] as string | undefined;
      let prefix: number | undefined;
      if (flag('clusterNetworkHostPrefix') !== undefined) {
        prefix = Number(flag('clusterNetworkHostPrefix'));
        if (!Number.isInteger(prefix)) throw new CliError('--cluster-network-host-prefix must be an integer', EXIT.usage);
      }
      // One of the CIDR and the host prefix given: the other is the cluster's first network's.
      const clusterNetworks = async (cidr: string | undefined, hostPrefix: number | undefined) => {
        if (cidr !== undefined && hostPrefix !== undefined) return [{ cidr, host_prefix: hostPrefix }];
        const current = await call(`reading cluster ${idOrName}`, () => api.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
        const first = current.cluster_networks?.[0];
        if (!first)
          throw new CliError('the cluster has no cluster network to change: give both --cluster-network and --cluster-network-host-prefix', EXIT.usage);
        return [{ cidr: cidr ?? first.cidr!, host_prefix: hostPrefix ?? first.host_prefix! }];
      };
      const umn = flag('userManagedNetworking');
      if (umn !== undefined && umn !== 'true' && umn !== 'false') throw new CliError('--user-managed-networking must be true or false', EXIT.usage);
      const body = {
        ...readParams(options.params as string | undefined),
        ...(flag('name') ? { name: flag('name') } : {}),
        ...(flag('baseDomain') ? { base_dns_domain: flag('baseDomain') } : {}),
        ...(flag('sshKeyFile') ? { ssh_public_key: readText(flag('sshKeyFile')!, 'SSH key file').trim() } : {}),
        ...(options.apiVip ? { api_vips: list(options.apiVip as string[]).map((ip) => ({ ip })) } : {}),
        ...(options.ingressVip ? { ingress_vips: list(options.ingressVip as string[]).map((ip) => ({ ip })) } : {}),
        ...(options.machineNetwork ? { machine_networks: list(options.machineNetwork as string[]).map((cidr) => ({ cidr })) } : {}),
        // The service, like upstream's, takes only the network lists: the singular fields are ignored.
        ...(flag('clusterNetwork') || prefix !== undefined ? { cluster_networks: await clusterNetworks(flag('clusterNetwork'), prefix) } : {}),
        ...(flag('serviceNetwork') ? { service_networks: [{ cidr: flag('serviceNetwork')! }] } : {}),
        ...(flag('httpProxy') !== undefined ? { http_proxy: flag('httpProxy') } : {}),
        ...(flag('httpsProxy') !== undefined ? { https_proxy: flag('httpsProxy') } : {}),
        ...(flag('proxyExceptions') !== undefined ? { no_proxy: flag('proxyExceptions') } : {}),
        ...(flag('ntpSource') !== undefined ? { additional_ntp_source: flag('ntpSource') } : {}),
        ...(umn !== undefined ? { user_managed_networking: umn === 'true' } : {}),
      } as ClusterUpdateParams;
      if (Object.keys(body).length === 0) throw new CliError('nothing to update: give at least one setting (see --help)', EXIT.usage);
      const cluster = await call(`updating cluster ${idOrName}`, () => api.PATCH('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } }, body }));
      print(cli.format(), cluster, (c) => ({ header: ['ID', 'NAME', 'VERSION', 'STATUS', 'HOSTS', 'INFO'], rows: [clusterRow(c)] }));
    });

  clusters
    .command('show <cluster>')
    .description('show a cluster (id or name), its hosts and failing validations')
    .action(async (idOrName: string) => {
      const { api, id } = await clientAndId(cli, idOrName, resolveClusterId);
      const cluster = await call(`reading cluster ${idOrName}`, () => api.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
      print(cli.format(), cluster, (c) => {
        const lines = [
          `id:          ${c.id}`,
          `name:        ${c.name ?? ''}.${c.base_dns_domain ?? ''}`,
          `version:     ${c.openshift_version ?? ''} (${c.cpu_architecture ?? ''})`,
          `status:      ${c.status} ${c.progress?.total_percentage !== undefined ? `(${c.progress.total_percentage}%)` : ''}`.trimEnd(),
          `info:        ${c.status_info}`,
          `api vips:    ${(c.api_vips ?? []).map((v) => v.ip).join(', ')}`,
          `ingress vips: ${(c.ingress_vips ?? []).map((v) => v.ip).join(', ')}`,
          `hosts:       ${c.total_host_count ?? c.hosts?.length ?? 0}`,
        ];
        const failing = failingValidations(c.validations_info);
        if (failing.length) lines.push(`failing:     ${failing.join(', ')}`);
        return lines.join('\n');
      });
    });

  clusters
    .command('watch <cluster>')
    .description('follow a cluster (id or name) until it is installed (exit 0) or settles elsewhere (exit 7): status, host stages, new events')
    .option('--timeout <duration>', 'give up after this long (exit 4)', '3h')
    .option('--interval <duration>', 'poll interval when live changes are unavailable', '10s')
    .option('--live-url <url>', 'the live changes WebSocket (default: $ASSISTED_LIVE_URL, else ws(s)://SERVICE/live)')
    .action(async (idOrName: string, options: { timeout: string; interval: string; liveUrl?: string }) => {
      const { api, id } = await clientAndId(cli, idOrName, resolveClusterId);
      const timeout = parseDuration(options.timeout);
      const interval = parseDuration(options.interval);
      const deadline = Date.now() + timeout;
      const fmt = cli.format();
      const feed = await openChangeFeed(cli.credentials(), { cluster_id: id }, { url: options.liveUrl ?? process.env.ASSISTED_LIVE_URL });
      const shown = new Map<string, string>();
      let seenEvents = 0;
      /** Prints a line for `key` only when it differs from the last one printed for it. */
      const show = (key: string, line: string, record: unknown) => {
        if (shown.get(key) === line) return;
        shown.set(key, line);
        process.stdout.write(fmt === 'table' ? `${line}\n` : fmt === 'json' ? `${JSON.stringify(record)}\n` : `---\n${YAML.stringify(record)}`);
      };
      try {
        for (;;) {
          const cluster = await call(`reading cluster ${idOrName}`, () => api.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
          show('cluster', `cluster ${clusterProgressLine(cluster)}`, {
            kind: 'cluster',
            id,
            status: cluster.status,
            status_info: cluster.status_info,
            progress: cluster.progress,
          });
          for (const host of cluster.hosts ?? []) {
            show(`host ${host.id}`, `host ${hostname(host) || host.id}: ${hostProgressLine(host)}`, {
              kind: 'host',
              id: host.id,
              status: host.status,
              status_info: host.status_info,
              progress: host.progress,
            });
          }
          const events = await call('listing events', () =>
            api.GET('/v2/events', { params: { query: { cluster_id: id, order: 'ascending', offset: seenEvents, limit: -1 } as never } }),
          );
          for (const event of events) printEvent(fmt, event, 'event ');
          seenEvents += events.length;
          if (cluster.status === 'installed') return;
          // A settled cluster will not move on by itself: watching longer could only time out.
          if (SETTLED.has(cluster.status))
            throw new CliError(`cluster ${id} is ${cluster.status}, not installed: ${cluster.status_info}`, EXIT.unexpectedState);
          if (Date.now() >= deadline) throw new CliError(`cluster ${id} is still ${cluster.status} after ${options.timeout}`, EXIT.timeout);
          await feed.next(interval, Math.max(deadline - Date.now(), 0));
        }
      } finally {
        feed.close();
      }
    });

  for (const [verb, description] of [
    ['delete', 'deregister a cluster'],
    ['install', 'start the installation'],
    ['cancel', 'cancel the installation'],
    ['reset', 'reset a cancelled or failed installation'],
  ] as const) {
    clusters
      .command(`${verb} <cluster>`)
      .description(description)
      .action(async (idOrName: string) => {
        const { api, id } = await clientAndId(cli, idOrName, resolveClusterId);
        const path = { params: { path: { cluster_id: id } } };
        if (verb === 'delete') {
          await call(`deleting cluster ${idOrName}`, () => api.DELETE('/v2/clusters/{cluster_id}', path));
          note(`cluster ${id} deleted`);
          return;
        }
        const cluster =
          verb === 'install'
            ? await call(`installing cluster ${idOrName}`, () => api.POST('/v2/clusters/{cluster_id}/actions/install', path))
            : verb === 'cancel'
              ? await call(`cancelling cluster ${idOrName}`, () => api.POST('/v2/clusters/{cluster_id}/actions/cancel', path))
              : await call(`resetting cluster ${idOrName}`, () => api.POST('/v2/clusters/{cluster_id}/actions/reset', path));
        print(cli.format(), cluster, (c) => ({ header: ['ID', 'NAME', 'VERSION', 'STATUS', 'HOSTS', 'INFO'], rows: [clusterRow(c)] }));
      });
  }
}

const SETTLED = new Set(['installed', 'error', 'cancelled']);

/** `installing 45%: Installation in progress` */
function clusterProgressLine(cluster: Cluster): string {
  const percentage = cluster.progress?.total_percentage;
  return `${cluster.status}${percentage !== undefined ? ` ${percentage}%` : ''}: ${cluster.status_info}`;
}

/** `installing-in-progress, Writing image to disk 30%` */
function hostProgressLine(host: Host): string {
  const progress = host.progress;
  const stage = progress?.current_stage
    ? `, ${progress.current_stage}${progress.installation_percentage !== undefined ? ` ${progress.installation_percentage}%` : ''}`
    : '';
  return `${host.status}${stage}`;
}

/** `wait` */
export function registerWait(program: Command, cli: Cli): void {
  program
    .command('wait <cluster>')
    .description('wait until a cluster reaches a state (exit 4 on timeout, 7 if it settles elsewhere)')
    .option('--for <status>', 'the state to wait for', 'installed')
    .option('--timeout <duration>', 'give up after this long', '90m')
    .option('--interval <duration>', 'poll interval', '10s')
    .action(async (idOrName: string, options: { for: string; timeout: string; interval: string }) => {
      const { api, id } = await clientAndId(cli, idOrName, resolveClusterId);
      const timeout = parseDuration(options.timeout);
      const interval = parseDuration(options.interval);
      const deadline = Date.now() + timeout;
      let last = '';
      const tty = process.stderr.isTTY;
      for (;;) {
        const cluster = await call(`reading cluster ${idOrName}`, () => api.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
        const percentage = cluster.progress?.total_percentage;
        const line = `${cluster.status}${percentage !== undefined ? ` ${percentage}%` : ''}: ${cluster.status_info}`;
        if (line !== last) {
          process.stderr.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
          last = line;
        }
        if (cluster.status === options.for) {
          if (tty) process.stderr.write('\n');
          print(cli.format(), cluster, (c) => `${c.id} ${c.status}`);
          return;
        }
        // A settled cluster will not move on by itself: waiting longer could only time out.
        if (SETTLED.has(cluster.status)) {
          if (tty) process.stderr.write('\n');
          throw new CliError(`cluster ${id} is ${cluster.status}, not ${options.for}: ${cluster.status_info}`, EXIT.unexpectedState);
        }
        if (Date.now() >= deadline) {
          if (tty) process.stderr.write('\n');
          throw new CliError(`cluster ${id} is still ${cluster.status} after ${options.timeout}, not ${options.for}`, EXIT.timeout);
        }
        await sleep(Math.min(interval, Math.max(deadline - Date.now(), 0)));
      }
    });
}

/** `kubeconfig` */
export function registerKubeconfig(program: Command, cli: Cli): void {
  program
    .command('kubeconfig <cluster>')
    .description('download the kubeconfig of an installed cluster')
    .option('-f, --file <file>', 'write it there (mode 0600) instead of standard output')
    .action(async (idOrName: string, options: { file?: string }) => {
      const { api, id } = await clientAndId(cli, idOrName, resolveClusterId);
      const text = await call(`downloading the kubeconfig of ${idOrName}`, () =>
        api.GET('/v2/clusters/{cluster_id}/downloads/credentials', {
          params: { path: { cluster_id: id }, query: { file_name: 'kubeconfig' } },
          parseAs: 'text',
        }),
      );
      if (options.file) {
        writeFileSync(options.file, text, { mode: 0o600 });
        note(`kubeconfig written to ${options.file}`);
      } else {
        process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
    });
}
