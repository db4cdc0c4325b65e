/**
 * "Boot simulated hosts" for a lab on one machine: the console's button for what
 * `assisted hosts simulate --infra-env X` does from a shell (cli/commands/hosts.ts), run in the
 * local runtime's own process. SIMULATED hosts as if booted from the infra-env's discovery image:
 * they register with the agent token of its discovery ignition and answer the service's steps with
 * made-up hardware; none of their results come from a real machine, which the event they start
 * with says (service-catalogue.json, simulated_hosts_started).
 *
 * Local runtime only: in AWS nothing answers these paths and the console offers no button. The
 * caller's own credential decides, through the API: whoever may download the discovery ignition (a
 * user or admin of the infra-env's organisation, not read-only) may boot hosts from it.
 *
 *   GET    /api/local/simulated-hosts?infra_env_id=X   {available: true, running: {...} | null}
 *   POST   /api/local/simulated-hosts                  {infra_env_id, profiles_mix} → 202 {...}
 *   DELETE /api/local/simulated-hosts?infra_env_id=X   stops them → 204
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { agentSettingsFromIgnition } from '../../cli/commands/hosts.js';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { profilesFromMix } from '../../agent/src/simulate/profile.js';
import { container } from '../../lambdas/platform/container.js';
import { recordEvent } from '../../lambdas/usecases/events.js';
import type { LocalRoute } from './api-gateway.js';
import type { SimulatedHostsRun } from '../../contracts/simulated-hosts.js';

export const SIMULATED_HOSTS_PATH = '/api/local/simulated-hosts';
/** The built-in profiles only: a profile may also name a JSON file, which a browser must not. */
const MIX = /^(master|worker|sno|undersized):\d{1,2}(,(master|worker|sno|undersized):\d{1,2})*$/;
const MAX_HOSTS = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Running extends SimulatedHostsRun {
  stop(): Promise<void>;
}

type Answer = { status: number; body?: unknown };
const error = (status: number, reason: string): Answer => ({ status, body: { code: String(status), href: '', id: status, kind: 'Error', reason } });

export function simulatedHostsRoute(options: { url: () => string; log: (message: string) => void }): { route: LocalRoute; stopAll(): Promise<void> } {
  const running = new Map<string, Running>();

  /** One API call with the caller's own credential: the API decides what they may do. */
  const asCaller = async (authorization: string | undefined, path: string, parseAs: 'json' | 'text' = 'json') => {
    const response = await fetch(`${options.url()}/api/assisted-install/v2${path}`, {
      headers: authorization ? { Authorization: authorization } : {},
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    const body: unknown = parseAs === 'json' || !response.ok ? (text ? safeJson(text) : undefined) : text;
    return { status: response.status, ok: response.ok, body };
  };

  const view = (fleet: Running | undefined) =>
    fleet
      ? {
          infra_env_id: fleet.infra_env_id,
          profiles_mix: fleet.profiles_mix,
          hosts: fleet.hosts,
          network: fleet.network,
          started_at: fleet.started_at,
          started_by: fleet.started_by,
        }
      : null;

  /** The infra-env as the caller may read it, or the API's refusal. */
  const readableInfraEnv = async (authorization: string | undefined, infraEnvId: string | null) => {
    if (!infraEnvId || !UUID.test(infraEnvId)) return { refusal: error(400, 'infra_env_id must be an infra-env id') };
    const infraEnv = await asCaller(authorization, `/infra-envs/${infraEnvId}`);
    if (!infraEnv.ok) return { refusal: { status: infraEnv.status, body: infraEnv.body } };
    return { infraEnv: infraEnv.body as { id: string; cluster_id?: string } };
  };

  async function start(authorization: string | undefined, request: { infra_env_id?: unknown; profiles_mix?: unknown }): Promise<Answer> {
    const infraEnvId = typeof request.infra_env_id === 'string' ? request.infra_env_id : null;
    const { refusal, infraEnv } = await readableInfraEnv(authorization, infraEnvId);
    if (refusal) return refusal;
    const mix = typeof request.profiles_mix === 'string' ? request.profiles_mix.replace(/\s+/g, '') : '';
    if (!MIX.test(mix)) return error(400, 'profiles_mix must read like master:3,worker:2 (profiles: master, worker, sno, undersized)');
    const profiles = profilesFromMix(mix);
    if (profiles.length === 0 || profiles.length > MAX_HOSTS) return error(400, `profiles_mix must name between 1 and ${MAX_HOSTS} hosts`);
    if (running.has(infraEnv!.id)) return error(409, 'Simulated hosts are running for this infra-env already: stop them first');
    // Read-only callers are refused here, as for any download of the discovery ignition (it holds the agent token).
    const ignition = await asCaller(authorization, `/infra-envs/${infraEnv!.id}/downloads/files?file_name=discovery.ign`, 'text');
    if (!ignition.ok) return { status: ignition.status, body: ignition.body };
    const organisation = await asCaller(authorization, '/organizations');
    const caller = (organisation.body as { id: string; email?: string; user_id?: string; api_token_name?: string; api_token_id?: string }[] | undefined)?.[0];
    if (!organisation.ok || !caller) return { status: organisation.status, body: organisation.body };
    const actor = caller.email ?? caller.user_id ?? `API token ${caller.api_token_name ?? caller.api_token_id ?? ''}`.trim();
    const { url, token, agentVersion } = agentSettingsFromIgnition(ignition.body as string);

    const stop = new AbortController();
    const fleet = new Fleet({
      url,
      infraEnvId: infraEnv!.id,
      token,
      agentVersion,
      profiles,
      timing: { maxPollIntervalMs: 5_000 },
      log: createLog({ level: 'info', stdout: false, sink: (line) => options.log(`simulated hosts ${infraEnv!.id}: ${line}`) }),
    });
    const entry: Running = {
      infra_env_id: infraEnv!.id,
      profiles_mix: mix,
      hosts: profiles.length,
      network: fleet.network.cidr,
      started_at: new Date().toISOString(),
      started_by: actor,
      stop: async () => {
        stop.abort();
        await done;
      },
    };
    const done = fleet
      .run(stop.signal)
      .catch((failure: Error) => options.log(`simulated hosts ${infraEnv!.id} stopped: ${failure.message}`))
      .finally(() => running.delete(infraEnv!.id));
    running.set(infraEnv!.id, entry);
    await recordEvent(container(), {
      name: 'simulated_hosts_started',
      subject: { orgId: caller.id, infraEnvId: infraEnv!.id, ...(infraEnv!.cluster_id ? { clusterId: infraEnv!.cluster_id } : {}) },
      props: { actor, count: profiles.length, profiles: mix, network: fleet.network.cidr },
    });
    options.log(`SIMULATED hosts: ${profiles.length} (${mix}) on ${fleet.network.cidr} for infra-env ${infraEnv!.id}, started by ${actor} from the console`);
    return { status: 202, body: view(entry) };
  }

  async function answer(request: IncomingMessage): Promise<Answer> {
    const address = new URL(request.url ?? '/', 'http://local');
    const authorization = request.headers.authorization;
    if (request.method === 'POST') {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(request));
      } catch {
        return error(400, 'The body must be a JSON object: {"infra_env_id": …, "profiles_mix": "master:3,worker:2"}');
      }
      return start(authorization, (body ?? {}) as Record<string, unknown>);
    }
    const { refusal, infraEnv } = await readableInfraEnv(authorization, address.searchParams.get('infra_env_id'));
    if (refusal) return refusal;
    if (request.method === 'GET') return { status: 200, body: { available: true, running: view(running.get(infraEnv!.id)) } };
    if (request.method === 'DELETE') {
      // Stopping takes what starting takes: the caller may download the discovery ignition.
      const allowed = await asCaller(authorization, `/infra-envs/${infraEnv!.id}/downloads/files?file_name=discovery.ign`, 'text');
      if (!allowed.ok) return { status: allowed.status, body: allowed.body };
      const fleet = running.get(infraEnv!.id);
      if (!fleet) return error(404, 'No simulated hosts are running for this infra-env');
      await fleet.stop();
      options.log(`SIMULATED hosts for infra-env ${infraEnv!.id} stopped from the console`);
      return { status: 204 };
    }
    return error(405, `${request.method ?? ''} is not allowed here`);
  }

  const route: LocalRoute = async (request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? '/', 'http://local').pathname !== SIMULATED_HOSTS_PATH) return false;
    let result: Answer;
    try {
      result = await answer(request);
    } catch (failure) {
      options.log(`simulated hosts: ${(failure as Error).message}`);
      result = error(502, `Could not start the simulated hosts: ${(failure as Error).message}`);
    }
    response.writeHead(result.status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    response.end(result.body === undefined ? '' : JSON.stringify(result.body));
    return true;
  };

  return {
    route,
    async stopAll() {
      await Promise.all([...running.values()].map((fleet) => fleet.stop()));
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
