/** `assisted hosts list` and `events`: what the hosts and the service report. */
import type { Command } from 'commander';
import { call, resolveClusterId, resolveInfraEnvId, type Host } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { print } from '../output.js';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { profilesFromMix } from '../../agent/src/simulate/profile.js';
import { parseStageDurations } from '../../agent/src/simulate/durations.js';
import { clientAndId, failingValidations, hostname, parseDuration, printEvent, type Cli } from './shared.js';
import { openChangeFeed, type LiveSubscription } from '../live.js';

/** What a host booted from the discovery image would use: the agent unit's service URL and token. */
export function agentSettingsFromIgnition(ignitionText: string): { url: string; token: string; agentVersion: string } {
  let ignition: { systemd?: { units?: { contents?: string }[] } };
  try {
    ignition = JSON.parse(ignitionText) as typeof ignition;
  } catch {
    throw new CliError('the discovery ignition is not JSON', EXIT.transient);
  }
  const unit = (ignition.systemd?.units ?? []).map((u) => u.contents ?? '').find((contents) => contents.includes('PULL_SECRET_TOKEN='));
  const token = unit && /^Environment=PULL_SECRET_TOKEN=(.*)$/m.exec(unit)?.[1];
  const url = unit && /--url (\S+)/.exec(unit)?.[1];
  const agentVersion = unit && /--agent-version (\S+)/.exec(unit)?.[1];
  if (!token || !url || !agentVersion)
    throw new CliError('the discovery ignition has no agent unit with a service URL, agent version and token', EXIT.transient);
  // systemd writes a literal % as %%.
  const literal = (value: string) => value.replace(/%%/g, '%');
  return { url: literal(url), token: literal(token), agentVersion: literal(agentVersion) };
}

/** `hosts list`, `hosts simulate` */
export function registerHosts(program: Command, cli: Cli): void {
  const hostsCommand = program.command('hosts').description('list hosts, or boot simulated ones');

  hostsCommand
    .command('simulate')
    .description('run SIMULATED hosts for an infra-env, as if booted from its discovery image (until Ctrl-C)')
    .requiredOption('--infra-env <infra-env>', 'infra-env id or name')
    .option(
      '--profiles-mix <mix>',
      'simulated hosts by profile, e.g. master:3,worker:2 (profiles: master, worker, sno, undersized, or a JSON file)',
      'master:3,worker:2',
    )
    .option('--max-poll-interval <seconds>', 'poll at least this often (the service asks every 60 s)', '5')
    .option('--install-durations <spec>', "simulated installer stage durations: 'Writing image to disk=5000,default=1000' or JSON")
    .option('--network <cidr>', "the simulated hosts' network", '192.168.111.0/24')
    .action(async (options: { infraEnv: string; profilesMix: string; maxPollInterval: string; installDurations?: string; network: string }) => {
      const { api, id: infraEnvId } = await clientAndId(cli, options.infraEnv, resolveInfraEnvId);
      const ignition = await call('downloading the discovery ignition', () =>
        api.GET('/v2/infra-envs/{infra_env_id}/downloads/files', {
          params: { path: { infra_env_id: infraEnvId }, query: { file_name: 'discovery.ign' } },
          parseAs: 'text',
        }),
      );
      // The image the service expects agents to run: the simulated hosts report it, as booted hosts would.
      const { url, token, agentVersion } = agentSettingsFromIgnition(ignition as unknown as string);
      let profiles: ReturnType<typeof profilesFromMix>;
      try {
        profiles = profilesFromMix(options.profilesMix);
      } catch (error) {
        throw new CliError(`--profiles-mix: ${(error as Error).message}`, EXIT.usage);
      }
      if (profiles.length === 0) throw new CliError('--profiles-mix names no hosts', EXIT.usage);
      const pollSeconds = Number(options.maxPollInterval);
      if (!(pollSeconds > 0)) throw new CliError('--max-poll-interval must be a positive number of seconds', EXIT.usage);
      const stageDurations = (text: string) => {
        try {
          return parseStageDurations(text);
        } catch (error) {
          throw new CliError(`--install-durations: ${(error as Error).message}`, EXIT.usage);
        }
      };
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const fleet = new Fleet({
        url,
        infraEnvId,
        token,
        agentVersion,
        profiles,
        network: options.network,
        timing: { maxPollIntervalMs: pollSeconds * 1000 },
        ...(options.installDurations ? { installDurationsMs: stageDurations(options.installDurations) } : {}),
        log: createLog({ level: 'info', stdout: false, sink: (line) => process.stderr.write(`${line}\n`) }),
      });
      process.stderr.write(
        `SIMULATED hosts: ${profiles.length} (${options.profilesMix}) on ${fleet.network.cidr} for infra-env ${infraEnvId}; none of their results come from a real machine. Ctrl-C stops them.\n`,
      );
      try {
        await fleet.run(stop.signal);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

  hostsCommand
    .command('list')
    .description('list the hosts of a cluster or infra-env, with status and failing validations')
    .option('--cluster <cluster>', 'cluster id or name')
    .option('--infra-env <infra-env>', 'infra-env id or name')
    .action(async (options: { cluster?: string; infraEnv?: string }) => {
      const api = cli.client();
      let hosts: Host[];
      if (options.cluster) {
        const id = await resolveClusterId(api, options.cluster);
        hosts = await call('listing hosts', () =>
          api.GET('/v2/clusters/{cluster_id}/hosts', { params: { path: { cluster_id: id }, query: { 'with-inventory': true } } }),
        );
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
    .option('--interval <duration>', 'poll interval when following without live changes', '5s')
    .option('--timeout <duration>', 'stop following after this long (exit 0)')
    .option('--live-url <url>', 'the live changes WebSocket (default: $ASSISTED_LIVE_URL, else ws(s)://SERVICE/live)')
    .action(async (options: { cluster?: string; infraEnv?: string; host?: string; follow?: boolean; interval: string; timeout?: string; liveUrl?: string }) => {
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
      // Following: each live change of the cluster (or infra-env) re-reads the events; polling when the socket is unavailable.
      const subscription: LiveSubscription | undefined = query.cluster_id
        ? { cluster_id: String(query.cluster_id) }
        : query.infra_env_id
          ? { infra_env_id: String(query.infra_env_id) }
          : undefined;
      const feed = options.follow
        ? await openChangeFeed(cli.credentials(), subscription, { url: options.liveUrl ?? process.env.ASSISTED_LIVE_URL })
        : undefined;
      try {
        for (;;) {
          const events = await call('listing events', () => api.GET('/v2/events', { params: { query: { ...query, offset: seen, limit: -1 } as never } }));
          for (const event of events) printEvent(fmt, event);
          seen += events.length;
          if (!feed || Date.now() >= deadline) return;
          await feed.next(interval, Math.max(deadline - Date.now(), 0));
        }
      } finally {
        feed?.close();
      }
    });
}
