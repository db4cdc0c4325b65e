/** `assisted hosts list` and `events`: what the hosts and the service report. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import YAML from 'yaml';
import { call, resolveClusterId, resolveInfraEnvId, type Host } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { print } from '../output.js';
import { failingValidations, parseDuration, type Cli } from './shared.js';

function hostname(host: Host): string {
  if (host.requested_hostname) return host.requested_hostname;
  try {
    return (JSON.parse(host.inventory ?? '{}') as { hostname?: string }).hostname ?? '';
  } catch {
    return '';
  }
}

/** `hosts list` */
export function registerHosts(program: Command, cli: Cli): void {
  program
    .command('hosts')
    .description('hosts')
    .command('list')
    .description('list the hosts of a cluster or infra-env, with status and failing validations')
    .option('--cluster <cluster>', 'cluster id or name')
    .option('--infra-env <infra-env>', 'infra-env id or name')
    .action(async (options: { cluster?: string; infraEnv?: string }) => {
      const api = cli.client();
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
      print(cli.format(), hosts, (list) => ({
        header: ['ID', 'HOSTNAME', 'ROLE', 'STATUS', 'STAGE', 'FAILING VALIDATIONS'],
        rows: list.map((h) => [h.id, hostname(h), h.role ?? '', h.status, h.progress?.current_stage ?? '', failingValidations(h.validations_info).join(',')]),
      }));
    });
}

/** `events` */
export function registerEvents(program: Command, cli: Cli): void {
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
      const api = cli.client();
      const query: Record<string, string | number> = { order: 'ascending' };
      if (options.cluster) query.cluster_id = await resolveClusterId(api, options.cluster);
      if (options.infraEnv) query.infra_env_id = await resolveInfraEnvId(api, options.infraEnv);
      if (options.host) query.host_id = options.host;
      if (!options.cluster && !options.infraEnv && !options.host) throw new CliError('events needs --cluster, --infra-env or --host', EXIT.usage);
      const interval = parseDuration(options.interval);
      const deadline = options.timeout ? Date.now() + parseDuration(options.timeout) : Number.POSITIVE_INFINITY;
      let seen = 0;
      const fmt = cli.format();
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
}
