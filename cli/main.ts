/**
 * `assisted`: the Assisted Installer from the command line, through the REST API only (the typed
 * client in cli/api.ts). Bundled to dist/assisted.mjs by `npm run build:cli`. Output: tables for
 * people, `-o json|yaml` for scripts; exit codes in cli/exit-codes.ts and docs/cli.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, CommanderError, Option } from 'commander';
import YAML from 'yaml';
import { apiClient, call, resolveClusterId, resolveInfraEnvId, type ApiClient, type Cluster, type ClusterCreateParams, type Host, type InfraEnvCreateParams } from './api.js';
import { resolveCredentials, storeCredentials } from './config.js';
import { download, progressBar } from './download.js';
import { CliError, EXIT } from './exit-codes.js';
import { note, outputFormat, print, type OutputFormat } from './output.js';
import { applyPlan, planStatus } from './ztp/apply.js';
import { formatManifestError, parseManifestFiles, readManifestDir } from './ztp/manifests.js';
import { planFromManifests, type ZtpPlan } from './ztp/translate.js';

interface GlobalOptions {
  output?: string;
  url?: string;
  token?: string;
}

const program = new Command('assisted')
  .description('Install OpenShift with the Assisted Installer service, from the command line.')
  .addOption(new Option('-o, --output <format>', 'table, json or yaml').default('table'))
  .option('--url <url>', 'service URL (default: the stored login, or $ASSISTED_URL)')
  .option('--token <token>', 'API token (default: the stored login, or $ASSISTED_TOKEN)')
  .showHelpAfterError()
  .exitOverride();

const globals = (): GlobalOptions => program.opts<GlobalOptions>();
const format = (): OutputFormat => outputFormat(globals().output);
const client = (): ApiClient => apiClient(resolveCredentials(globals()));

function readText(file: string, what: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${what} ${file}: ${(error as Error).message}`, EXIT.usage);
  }
}

function readParams(file: string | undefined): Record<string, unknown> {
  if (!file) return {};
  const parsed: unknown = YAML.parse(readText(file, 'params file'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError(`${file} must hold a JSON or YAML object of API parameters`, EXIT.invalidInput);
  return parsed as Record<string, unknown>;
}

function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new CliError(`"${text}" is not a duration such as 90s, 30m or 2h`, EXIT.usage);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * factor;
}

type ValidationsInfo = Record<string, { id: string; status: string; message: string }[]>;
function failingValidations(validationsInfo: string | undefined | null): string[] {
  if (!validationsInfo) return [];
  try {
    return Object.values(JSON.parse(validationsInfo) as ValidationsInfo)
      .flat()
      .filter((v) => v.status === 'failure')
      .map((v) => v.id);
  } catch {
    return [];
  }
}

const clusterRow = (c: Cluster) => [c.id, c.name ?? '', c.openshift_version ?? '', c.status, String(c.total_host_count ?? c.hosts?.length ?? 0), c.status_info];

function hostname(host: Host): string {
  if (host.requested_hostname) return host.requested_hostname;
  try {
    return (JSON.parse(host.inventory ?? '{}') as { hostname?: string }).hostname ?? '';
  } catch {
    return '';
  }
}

// ---- login

program
  .command('login')
  .description('check and store --url and the API token (in $XDG_CONFIG_HOME/assisted/config.yaml, mode 0600)')
  .option('--token-stdin', 'read the API token from standard input (--token shows it to other local users in the process list)')
  .action(async (options: { tokenStdin?: boolean }) => {
    const { url: givenUrl, token: givenToken } = globals();
    const token = options.tokenStdin ? readFileSync(0, 'utf8').trim() : givenToken;
    if (!givenUrl) throw new CliError('login needs --url, e.g. --url http://127.0.0.1:8090', EXIT.usage);
    if (!token) throw new CliError('login needs --token-stdin or --token', EXIT.usage);
    const url = givenUrl.replace(/\/+$/, '');
    // Prove the pair works before storing it.
    await call(`checking the token against ${url}`, () => apiClient({ url, token }).GET('/v2/clusters'));
    const file = storeCredentials({ url, token });
    note(`logged in to ${url}; credentials stored in ${file}`);
  });

// ---- clusters

const clusters = program.command('clusters').description('list, create, show, delete, install, cancel and reset clusters');

clusters
  .command('list')
  .description('list clusters')
  .action(async () => {
    const list = await call('listing clusters', () => client().GET('/v2/clusters'));
    print(format(), list, (rows) => ({ header: ['ID', 'NAME', 'VERSION', 'STATUS', 'HOSTS', 'INFO'], rows: rows.map(clusterRow) }));
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
  .option('--control-plane-count <n>', 'control plane nodes (1, 3, 4 or 5)')
  .option('--api-vip <ip...>', 'API VIP(s)')
  .option('--ingress-vip <ip...>', 'ingress VIP(s)')
  .option('--machine-network <cidr...>', 'machine network CIDR(s)')
  .option('--cpu-architecture <arch>', 'x86_64, arm64, ppc64le, s390x or multi')
  .option('--params <file>', 'JSON/YAML file of further cluster-create-params (merged; flags win)')
  .action(async (options: Record<string, string | string[] | boolean | undefined>) => {
    const api = client();
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
    print(format(), cluster, (c) => ({ header: ['ID', 'NAME', 'VERSION', 'STATUS', 'HOSTS', 'INFO'], rows: [clusterRow(c)] }));
  });

clusters
  .command('show <cluster>')
  .description('show a cluster (id or name), its hosts and failing validations')
  .action(async (idOrName: string) => {
    const api = client();
    const id = await resolveClusterId(api, idOrName);
    const cluster = await call(`reading cluster ${idOrName}`, () => api.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
    print(format(), cluster, (c) => {
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
      const api = client();
      const id = await resolveClusterId(api, idOrName);
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
      print(format(), cluster, (c) => ({ header: ['ID', 'NAME', 'VERSION', 'STATUS', 'HOSTS', 'INFO'], rows: [clusterRow(c)] }));
    });
}

// ---- infra-envs

const infraEnvs = program.command('infra-envs').description('create and show infra-envs (discovery image configurations)');

infraEnvs
  .command('create')
  .description('register an infra-env')
  .requiredOption('--name <name>', 'infra-env name')
  .option('--cluster <cluster>', 'cluster (id or name) the hosts join')
  .requiredOption('--pull-secret-file <file>', 'pull secret JSON file ("-" for stdin)')
  .option('--ssh-key-file <file>', 'SSH public key for the discovery image')
  .option('--image-type <type>', 'full-iso or minimal-iso')
  .option('--cpu-architecture <arch>', 'CPU architecture')
  .option('--params <file>', 'JSON/YAML file of further infra-env-create-params (merged; flags win)')
  .action(async (options: Record<string, string | undefined>) => {
    const api = client();
    const clusterId = options.cluster ? await resolveClusterId(api, options.cluster) : undefined;
    const body = {
      ...readParams(options.params),
      name: options.name!,
      pull_secret: readText(options.pullSecretFile!, 'pull secret file').trim(),
      ...(clusterId ? { cluster_id: clusterId } : {}),
      ...(options.sshKeyFile ? { ssh_authorized_key: readText(options.sshKeyFile, 'SSH key file').trim() } : {}),
      ...(options.imageType ? { image_type: options.imageType } : {}),
      ...(options.cpuArchitecture ? { cpu_architecture: options.cpuArchitecture } : {}),
    } as InfraEnvCreateParams;
    const infraEnv = await call(`registering infra-env ${body.name}`, () => api.POST('/v2/infra-envs', { body }));
    print(format(), infraEnv, (i) => ({ header: ['ID', 'NAME', 'CLUSTER', 'TYPE'], rows: [[i.id, i.name, i.cluster_id ?? '', i.type]] }));
  });

infraEnvs
  .command('show <infra-env>')
  .description('show an infra-env (id or name)')
  .action(async (idOrName: string) => {
    const api = client();
    const id = await resolveInfraEnvId(api, idOrName);
    const infraEnv = await call(`reading infra-env ${idOrName}`, () => api.GET('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } } }));
    print(format(), infraEnv, (i) =>
      [`id:        ${i.id}`, `name:      ${i.name}`, `cluster:   ${i.cluster_id ?? '(none: late binding)'}`, `type:      ${i.type}`, `version:   ${i.openshift_version ?? ''} (${i.cpu_architecture ?? ''})`, `image url: ${i.download_url ?? ''}`].join('\n'),
    );
  });

// ---- image

program
  .command('image')
  .description('discovery images')
  .command('download <infra-env>')
  .description('download the discovery ISO of an infra-env (resumable; checksum checked when the server states one)')
  .option('-f, --file <file>', 'where to write it (default: discovery-<infra-env id>.iso)')
  .action(async (idOrName: string, options: { file?: string }) => {
    const api = client();
    const id = await resolveInfraEnvId(api, idOrName);
    const presigned = await call(`getting the image URL of infra-env ${idOrName}`, () => api.GET('/v2/infra-envs/{infra_env_id}/downloads/image-url', { params: { path: { infra_env_id: id } } }));
    const file = options.file ?? `discovery-${id}.iso`;
    const bar = progressBar(path.basename(file));
    const result = await download(presigned.url, file, { progress: bar.progress });
    bar.done();
    if (result.resumedFrom > 0) note(`resumed at byte ${result.resumedFrom}`);
    note(result.checksum ? `${result.checksum.algorithm} verified: ${result.checksum.expected}` : 'the server states no checksum for this image: not verified');
    print(format(), { file: result.file, bytes: result.bytes, resumed_from: result.resumedFrom, checksum: result.checksum ?? null }, (r) => `${r.file} (${r.bytes} bytes)`);
  });

// ---- hosts

program
  .command('hosts')
  .description('hosts')
  .command('list')
  .description('list the hosts of a cluster or infra-env, with status and failing validations')
  .option('--cluster <cluster>', 'cluster id or name')
  .option('--infra-env <infra-env>', 'infra-env id or name')
  .action(async (options: { cluster?: string; infraEnv?: string }) => {
    const api = client();
    let hosts: Host[];
    if (options.cluster) {
      const id = await resolveClusterId(api, options.cluster);
      hosts = await call('listing hosts', () => api.GET('/v2/clusters/{cluster_id}/hosts', { params: { path: { cluster_id: id } } }));
    } else if (options.infraEnv) {
      const id = await resolveInfraEnvId(api, options.infraEnv);
      hosts = await call('listing hosts', () => api.GET('/v2/infra-envs/{infra_env_id}/hosts', { params: { path: { infra_env_id: id } } }));
    } else {
      throw new CliError('hosts list needs --cluster or --infra-env', EXIT.usage);
    }
    print(format(), hosts, (list) => ({
      header: ['ID', 'HOSTNAME', 'ROLE', 'STATUS', 'STAGE', 'FAILING VALIDATIONS'],
      rows: list.map((h) => [h.id, hostname(h), h.role ?? '', h.status, h.progress?.current_stage ?? '', failingValidations(h.validations_info).join(',')]),
    }));
  });

// ---- events

program
  .command('events')
  .description('events of a cluster, host or infra-env')
  .option('--cluster <cluster>', 'cluster id or name')
  .option('--infra-env <infra-env>', 'infra-env id or name')
  .option('--host <host-id>', 'host id')
  .option('-f, --follow', 'keep printing new events until interrupted (or --timeout)')
  .option('--interval <duration>', 'poll interval when following', '5s')
  .option('--timeout <duration>', 'stop following after this long (exit 0)')
  .action(async (options: { cluster?: string; infraEnv?: string; host?: string; follow?: boolean; interval: string; timeout?: string }) => {
    const api = client();
    const query: Record<string, string | number> = { order: 'ascending' };
    if (options.cluster) query.cluster_id = await resolveClusterId(api, options.cluster);
    if (options.infraEnv) query.infra_env_id = await resolveInfraEnvId(api, options.infraEnv);
    if (options.host) query.host_id = options.host;
    if (!options.cluster && !options.infraEnv && !options.host) throw new CliError('events needs --cluster, --infra-env or --host', EXIT.usage);
    const interval = parseDuration(options.interval);
    const deadline = options.timeout ? Date.now() + parseDuration(options.timeout) : Number.POSITIVE_INFINITY;
    let seen = 0;
    const fmt = format();
    for (;;) {
      const events = await call('listing events', () => api.GET('/v2/events', { params: { query: { ...query, offset: seen, limit: -1 } as never } }));
      for (const event of events) {
        if (fmt === 'json') process.stdout.write(`${JSON.stringify(event)}\n`);
        else if (fmt === 'yaml') process.stdout.write(`---\n${YAML.stringify(event)}`);
        else process.stdout.write(`${event.event_time}  ${event.severity.padEnd(8)} ${event.message}\n`);
      }
      seen += events.length;
      if (!options.follow || Date.now() >= deadline) return;
      await sleep(Math.min(interval, Math.max(deadline - Date.now(), 0)));
    }
  });

// ---- wait

const SETTLED = new Set(['installed', 'error', 'cancelled']);

program
  .command('wait <cluster>')
  .description('wait until a cluster reaches a state (exit 4 on timeout, 7 if it settles elsewhere)')
  .option('--for <status>', 'the state to wait for', 'installed')
  .option('--timeout <duration>', 'give up after this long', '90m')
  .option('--interval <duration>', 'poll interval', '10s')
  .action(async (idOrName: string, options: { for: string; timeout: string; interval: string }) => {
    const api = client();
    const id = await resolveClusterId(api, idOrName);
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
        print(format(), cluster, (c) => `${c.id} ${c.status}`);
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

// ---- kubeconfig

program
  .command('kubeconfig <cluster>')
  .description('download the kubeconfig of an installed cluster')
  .option('-f, --file <file>', 'write it there (mode 0600) instead of standard output')
  .action(async (idOrName: string, options: { file?: string }) => {
    const api = client();
    const id = await resolveClusterId(api, idOrName);
    const text = await call(`downloading the kubeconfig of ${idOrName}`, () =>
      api.GET('/v2/clusters/{cluster_id}/downloads/credentials', { params: { path: { cluster_id: id }, query: { file_name: 'kubeconfig' } }, parseAs: 'text' }),
    );
    if (options.file) {
      writeFileSync(options.file, text, { mode: 0o600 });
      note(`kubeconfig written to ${options.file}`);
    } else {
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
  });

// ---- tokens

const tokens = program.command('tokens').description('API tokens');

tokens
  .command('create')
  .description('create an API token; its secret is shown once')
  .requiredOption('--name <name>', 'who or what uses it')
  .option('--role <role>', 'admin, user or read-only', 'user')
  .option('--expires-at <time>', 'ISO 8601 expiry')
  .action(async (options: { name: string; role: string; expiresAt?: string }) => {
    const created = await call('creating a token', () =>
      client().POST('/v2/api-tokens', { body: { name: options.name, role: options.role as 'user', ...(options.expiresAt ? { expires_at: options.expiresAt } : {}) } }),
    );
    print(format(), created, (t) => `${t.token}\n\ntoken ${t.id} (${t.role}) created; the secret above is shown only now.`);
  });

tokens
  .command('list')
  .description('list API tokens')
  .action(async () => {
    const list = await call('listing tokens', () => client().GET('/v2/api-tokens'));
    print(format(), list, (rows) => ({
      header: ['ID', 'NAME', 'ROLE', 'CREATED', 'STATE'],
      rows: rows.map((t) => [t.id, t.name, t.role, t.created_at, t.revoked_at ? `revoked ${t.revoked_at}` : t.expires_at ? `expires ${t.expires_at}` : 'active']),
    }));
  });

tokens
  .command('revoke <token-id>')
  .description('revoke an API token')
  .action(async (tokenId: string) => {
    await call(`revoking token ${tokenId}`, () => client().DELETE('/v2/api-tokens/{token_id}', { params: { path: { token_id: tokenId } } }));
    note(`token ${tokenId} revoked`);
  });

// ---- ztp

function loadPlan(dir: string): ZtpPlan {
  let files;
  try {
    files = readManifestDir(dir);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
  if (files.length === 0) throw new CliError(`${dir} holds no *.yaml, *.yml or *.json manifests`, EXIT.invalidInput);
  const parsed = parseManifestFiles(files);
  const planned = planFromManifests(parsed.documents);
  const errors = [...parsed.errors, ...planned.errors];
  if (errors.length > 0) {
    throw new CliError(`${errors.length} problem(s) in the manifests of ${dir}; nothing was registered:\n${errors.map((e) => `  ${formatManifestError(e)}`).join('\n')}`, EXIT.invalidInput);
  }
  return planned.plan;
}

const ztp = program.command('ztp').description('ZTP manifests (ClusterDeployment, AgentClusterInstall, ClusterImageSet, InfraEnv, NMStateConfig, pull-secret Secret) → REST');

ztp
  .command('apply <dir>')
  .description('validate the manifests in DIR and register what they describe (idempotent)')
  .option('--dry-run', 'print the REST calls instead of making them')
  .action(async (dir: string, options: { dryRun?: boolean }) => {
    const plan = loadPlan(dir);
    const report = await applyPlan(client(), plan, { dryRun: options.dryRun === true });
    for (const warning of report.warnings) note(`warning: ${warning}`);
    print(format(), options.dryRun ? { calls: report.calls, resources: report.resources } : { resources: report.resources }, (r) => {
      const calls = options.dryRun ? report.calls.map((c) => `${c.method} ${c.path}${c.body !== undefined ? `\n${JSON.stringify(c.body, null, 2).replace(/^/gm, '    ')}` : ''}`).join('\n') : '';
      const resources = r.resources.map((res) => `${res.kind} ${res.name}${res.id ? ` (${res.id})` : ''}: ${res.action}${res.fields?.length ? ` [${res.fields.join(', ')}]` : ''}`).join('\n');
      return options.dryRun ? `${calls || '(no calls: everything is registered as described)'}\n\n${resources}` : resources;
    });
  });

ztp
  .command('status <dir>')
  .description("the AgentClusterInstalls' conditions, from the clusters registered for DIR's manifests")
  .action(async (dir: string) => {
    const plan = loadPlan(dir);
    const statuses = await planStatus(client(), plan);
    print(
      format(),
      statuses.map((s) => ({
        apiVersion: 'extensions.hive.openshift.io/v1beta1',
        kind: 'AgentClusterInstall',
        metadata: { name: s.agentClusterInstall.name, ...(s.agentClusterInstall.namespace ? { namespace: s.agentClusterInstall.namespace } : {}) },
        status: { conditions: s.conditions, debugInfo: { state: s.state ?? '', stateInfo: s.stateInfo ?? '' }, ...(s.clusterId ? { clusterID: s.clusterId } : {}) },
      })),
      (list) =>
        list
          .map((aci) => `${aci.metadata.name}${aci.status.debugInfo.state ? ` (${aci.status.debugInfo.state})` : ''}\n${aci.status.conditions.map((c) => `${c.type}\t${c.status}\t${c.reason}\t${c.message}`).join('\n')}`)
          .join('\n\n'),
    );
  });

export async function main(argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not failures; every other commander error is a usage error it has already printed.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`assisted: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`assisted: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.transient;
  }
}

process.exitCode = await main(process.argv);
