/**
 * `npm run hub -- --kubeconfig FILE`: the hub controller, run next to the hub's API server. It
 * installs clusters described by upstream's custom resources (ClusterDeployment,
 * AgentClusterInstall, ClusterImageSet, InfraEnv, NMStateConfig, Agent, BareMetalHost) through the
 * Assisted service's REST API (ASSISTED_URL, with ASSISTED_TOKEN or the token in a Secret).
 * Several may run for one hub: one leads (a coordination.k8s.io Lease), the others wait.
 */
import { hostname } from 'node:os';
import { Command } from 'commander';
import { restClient } from './assisted.js';
import { HubController } from './controller.js';
import { Kube, kubeFailure } from './kube.js';
import { LeaderElector } from './leader.js';

interface Flags {
  kubeconfig?: string;
  namespace?: string;
  assistedUrl?: string;
  tokenSecret?: string;
  tokenSecretKey: string;
  leaseNamespace: string;
  leaseName: string;
  leaseDuration: string;
  identity: string;
  resyncSeconds: string;
}

const log = (message: string) => process.stderr.write(`${new Date().toISOString()} hub: ${message}\n`);

async function tokenFrom(kube: Kube, flags: Flags): Promise<string> {
  if (!flags.tokenSecret) {
    const token = process.env.ASSISTED_TOKEN;
    if (!token) throw new Error('no token: set ASSISTED_TOKEN or give --token-secret NAMESPACE/NAME');
    return token;
  }
  const [namespace, name] = flags.tokenSecret.includes('/') ? flags.tokenSecret.split('/', 2) : [flags.namespace ?? 'default', flags.tokenSecret];
  const secret = await kube.secret(namespace!, name!);
  const encoded = secret?.data?.[flags.tokenSecretKey];
  if (!encoded) throw new Error(`Secret ${namespace}/${name} has no key "${flags.tokenSecretKey}" (--token-secret, --token-secret-key)`);
  return Buffer.from(encoded, 'base64').toString('utf8').trim();
}

async function main(argv: string[]): Promise<number> {
  const program = new Command('hub')
    .description("the hub controller: installs clusters from upstream's custom resources through the Assisted REST API")
    .option('--kubeconfig <file>', "kubeconfig of the hub's API server (default: $KUBECONFIG)")
    .option('--namespace <namespace>', 'watch this namespace only (default: all namespaces)')
    .option('--assisted-url <url>', "the Assisted service's root URL (default: $ASSISTED_URL)")
    .option('--token-secret <namespace/name>', 'read the API token from this Secret instead of $ASSISTED_TOKEN')
    .option('--token-secret-key <key>', 'the key of the token in that Secret', 'token')
    .option('--lease-namespace <namespace>', 'namespace of the leader-election Lease', 'default')
    .option('--lease-name <name>', 'name of the leader-election Lease', 'assisted-hub-controller')
    .option('--lease-duration <seconds>', 'how long a leader that stopped renewing keeps the lease', '15')
    .option('--identity <id>', "this controller's name in the Lease", `${hostname()}-${process.pid}`)
    .option('--resync-seconds <seconds>', 'how often each resource is compared with the service again', '30')
    .exitOverride();
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    return (error as { exitCode?: number }).exitCode ?? 2;
  }
  const flags = program.opts<Flags>();
  const kubeconfig = flags.kubeconfig ?? process.env.KUBECONFIG;
  const serviceUrl = flags.assistedUrl ?? process.env.ASSISTED_URL;
  if (!kubeconfig) return usage('--kubeconfig (or $KUBECONFIG) is required');
  if (!serviceUrl) return usage('--assisted-url (or $ASSISTED_URL) is required');
  const leaseDuration = Number(flags.leaseDuration);
  const resyncSeconds = Number(flags.resyncSeconds);
  if (!(leaseDuration >= 2)) return usage('--lease-duration must be at least 2 seconds');
  if (!(resyncSeconds > 0)) return usage('--resync-seconds must be a positive number');

  const kube = Kube.fromFile(kubeconfig, flags.namespace);
  let token: string;
  try {
    token = await tokenFrom(kube, flags);
  } catch (error) {
    log(kubeFailure(error));
    return 2;
  }
  const rest = restClient(serviceUrl, () => token);
  const elector = new LeaderElector(kube, {
    namespace: flags.leaseNamespace,
    name: flags.leaseName,
    identity: flags.identity,
    leaseDurationSeconds: leaseDuration,
    log,
  });
  const stop = new AbortController();
  let controller: HubController | undefined;
  let exitCode = 0;
  const shutdown = (code: number) => {
    exitCode = code;
    stop.abort();
    void controller?.stop();
  };
  process.once('SIGINT', () => shutdown(0));
  process.once('SIGTERM', () => shutdown(0));

  const leading = await elector.lead(stop.signal, (reason) => {
    // Lost leadership: stop at once so two controllers never reconcile together.
    log(`lost leadership (${reason}); stopping`);
    shutdown(1);
  });
  if (!leading) return exitCode;
  if (flags.tokenSecret) {
    // A rotated token Secret is read again every resync.
    const refresh = setInterval(
      () =>
        void tokenFrom(kube, flags)
          .then((fresh) => (token = fresh))
          .catch((error: unknown) => log(`token: ${kubeFailure(error)}`)),
      resyncSeconds * 1000,
    );
    refresh.unref();
  }
  controller = new HubController({ kube, rest, serviceUrl, resyncMs: resyncSeconds * 1000, log });
  log(`watching ${flags.namespace ? `namespace ${flags.namespace}` : 'all namespaces'}; service ${serviceUrl}`);
  await controller.start();
  await elector.release();
  return exitCode;
}

function usage(message: string): number {
  log(message);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`fatal: ${(error as Error)?.stack ?? String(error)}`);
    process.exit(1);
  },
);
