/**
 * The session against a stand-in service on loopback: registration, polling with the id the
 * service names, concurrent steps and their replies, and every status the agent must ride out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StepRunner } from '../../../agent/src/contracts.js';
import { createLog } from '../../../agent/src/log.js';
import { AgentSession, EXIT_STEP_TIMEOUT, type SessionTiming } from '../../../agent/src/session.js';
import { createTransport } from '../../../agent/src/transport.js';
import { refuseCommands } from '../../../agent/src/simulate/fleet.js';
import { sleep, until } from '../../support/net.js';
import { FakeService, registered, steps, type Answer, type Recorded } from './fake-service.js';

const INFRA_ENV = '11111111-1111-4111-8111-111111111111';
const OWN_ID = 'aaaaaaaa-0000-4000-8000-000000000001';
/** The service may poll a host under another id than the one it registered with. */
const SERVICE_ID = '00000000-0000-0000-0000-000000000042';
const TOKEN = 'agent-token-not-for-logs';

const FAST: Partial<SessionTiming> = {
  registerRetryMs: 100,
  parkMs: 400,
  incompatibleServerMs: 400,
  pollBackoff: { initialMs: 20, multiplier: 1.5, randomization: 0.5, maxIntervalMs: 100, maxElapsedMs: 1_000 },
  stepAbortGraceMs: 100,
  stopGraceMs: 500,
};

const services: FakeService[] = [];
const stops: AbortController[] = [];
const runs: Promise<void>[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await Promise.all(runs.splice(0));
  for (const service of services.splice(0)) await service.stop();
});

interface Harness {
  service: FakeService;
  lines: string[];
  stop: AbortController;
  run: Promise<void>;
}

async function start(
  respond: (r: Recorded) => Answer | Promise<Answer>,
  options: { steps?: Record<string, StepRunner>; timing?: Partial<SessionTiming>; service?: FakeService } = {},
): Promise<Harness> {
  const service = options.service ?? (await new FakeService(respond).start());
  if (!options.service) services.push(service);
  const lines: string[] = [];
  const log = createLog({ level: 'debug', sink: (line) => lines.push(line) });
  const api = createTransport({ url: service.url, token: TOKEN, agentVersion: 'quay.io/example/agent:test', retryDelays: { baseMs: 10, maxMs: 20 }, log });
  const session = new AgentSession({
    api,
    infraEnvId: INFRA_ENV,
    hostId: OWN_ID,
    agentVersion: 'quay.io/example/agent:test',
    steps: options.steps ?? {},
    exec: refuseCommands,
    log,
    timing: { ...FAST, ...options.timing },
  });
  const stop = new AbortController();
  stops.push(stop);
  const run = session.run(stop.signal);
  runs.push(run);
  return { service, lines, stop, run };
}

const isRegister = (r: Recorded) => r.method === 'POST' && r.path === `/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts`;
const isPoll = (r: Recorded) => r.method === 'GET' && r.path.endsWith('/instructions');
const isReply = (r: Recorded) => r.method === 'POST' && r.path.endsWith('/instructions');
const replies = (service: FakeService) => service.requests.filter(isReply).map((r) => JSON.parse(r.body) as Record<string, unknown>);

describe('agent session', () => {
  it('registers, polls with the id the service names, runs steps concurrently and replies as upstream', async () => {
    let polls = 0;
    const { service } = await start(
      (r) => {
        if (isRegister(r)) return registered(INFRA_ENV, SERVICE_ID);
        if (isPoll(r))
          return ++polls === 1
            ? steps([
                { step_type: 'inventory', args: [SERVICE_ID] },
                { step_type: 'free-network-addresses', args: ['["192.168.1.0/24"]'] },
                { step_type: 'execute' },
              ])
            : steps([], 60);
        return { status: 204 };
      },
      {
        steps: {
          inventory: async (request, context) => {
            await sleep(150);
            return { exit_code: 0, output: JSON.stringify({ hostname: 'h', asked: request.args?.[0], polled_as: context.hostId }) };
          },
          'free-network-addresses': async () => ({ exit_code: 3, error: 'nmap exited with 3' }),
        },
      },
    );
    await until(() => replies(service).length === 3, 5_000, 'three replies');

    const register = service.requests.find(isRegister)!;
    expect(JSON.parse(register.body)).toEqual({ host_id: OWN_ID, discovery_agent_version: 'quay.io/example/agent:test' });
    const poll = service.requests.find(isPoll)!;
    expect(poll.path).toBe(`/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts/${SERVICE_ID}/instructions`);
    expect(Math.abs(Number(poll.query.get('timestamp')) - Date.now() / 1000)).toBeLessThan(10);
    for (const request of service.requests) {
      expect(request.headers['x-secret-key']).toBe(TOKEN);
      expect(request.headers.discovery_agent_version).toBe('quay.io/example/agent:test');
      expect(request.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(service.requests.map((r) => r.headers['x-request-id'])).size).toBe(service.requests.length);

    const byType = Object.fromEntries(replies(service).map((reply) => [reply.step_type, reply]));
    // Slow inventory answered last: the steps ran side by side.
    expect(replies(service).at(-1)!.step_type).toBe('inventory');
    expect(byType.inventory).toEqual({
      step_type: 'inventory',
      step_id: 'inventory-00000000',
      output: JSON.stringify({ hostname: 'h', asked: SERVICE_ID, polled_as: SERVICE_ID }),
    });
    expect(byType.inventory).not.toHaveProperty('exit_code');
    expect(byType['free-network-addresses']).toMatchObject({ exit_code: 3, error: 'nmap exited with 3' });
    expect(byType.execute).toEqual({ step_type: 'execute', step_id: 'execute-00000002', exit_code: -1, error: 'failed to find action for step type execute' });
  });

  it('does not post an unchanged successful output again, but posts changes and every failure', async () => {
    let outputs = ['{"a":1}', '{"a":1}', '{"a":2}', 'fail', 'fail', '{"a":2}'];
    const { service } = await start(
      (r) =>
        isRegister(r)
          ? registered(INFRA_ENV, SERVICE_ID)
          : isPoll(r)
            ? steps(outputs.length ? [{ step_type: 'ntp-synchronizer' }] : [], 0.05)
            : { status: 204 },
      {
        steps: {
          'ntp-synchronizer': async () => {
            const next = outputs[0]!;
            outputs = outputs.slice(1);
            return next === 'fail' ? { exit_code: 1, error: 'chronyc: not reachable' } : { exit_code: 0, output: next };
          },
        },
      },
    );
    await until(() => outputs.length === 0, 5_000, 'all outputs consumed');
    await sleep(150);
    expect(replies(service).map((r) => r.output ?? `exit ${r.exit_code}`)).toEqual(['{"a":1}', '{"a":2}', 'exit 1', 'exit 1', '{"a":2}']);
  });

  it('waits next_instruction_seconds between polls', async () => {
    const { service } = await start((r) => (isRegister(r) ? registered(INFRA_ENV, SERVICE_ID) : steps([], 1)));
    await until(() => service.requests.filter(isPoll).length >= 3, 5_000, 'three polls');
    const times = service.requests.filter(isPoll).map((r) => r.at);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(950);
    expect(times[2]! - times[1]!).toBeLessThan(2_500);
  });

  it('registers again when the service answers post_step_action exit', async () => {
    let polls = 0;
    const { service } = await start((r) =>
      isRegister(r) ? registered(INFRA_ENV, SERVICE_ID) : isPoll(r) ? (++polls === 1 ? steps([], 0, 'exit') : steps([], 60)) : { status: 204 },
    );
    await until(() => service.requests.filter(isRegister).length === 2 && polls === 2, 5_000, 're-registration');
    expect(service.requests.map((r) => (isRegister(r) ? 'register' : 'poll'))).toEqual(['register', 'poll', 'register', 'poll']);
  });

  it.each([
    [
      409,
      { code: '409', reason: 'Cluster c is installing and accepts new hosts only in insufficient, ready' },
      /parked: the cluster cannot accept new hosts in its current state: Cluster c is installing/,
    ],
    [404, { code: '404', reason: 'Infra-env not found' }, /parked: infra-env .* does not exist/],
    [401, { code: 401, message: 'bad token' }, /parked: the service did not accept this agent's credentials/],
    [403, { code: 403, message: 'host not allowed' }, /parked: the service does not allow this host to register: host not allowed/],
  ])('parks on %i at registration, says so, and tries again only after the park', async (status, body, message) => {
    const { service, lines } = await start(() => ({ status, body }), { timing: { parkMs: 600 } });
    await until(() => lines.some((l) => message.test(l) && /will retry in 1 s/.test(l)), 3_000, 'park message');
    await sleep(300);
    expect(service.requests.filter(isRegister)).toHaveLength(1);
    await until(() => service.requests.filter(isRegister).length === 2, 3_000, 'second attempt after the park');
    const gap = service.requests[1]!.at - service.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(550);
  });

  it('parks when polling answers 404 (host gone), then registers again', async () => {
    const { service, lines } = await start((r) =>
      isRegister(r) ? registered(INFRA_ENV, SERVICE_ID) : { status: 404, body: { code: '404', reason: 'Host not found' } },
    );
    await until(() => service.requests.filter(isRegister).length === 2, 3_000, 're-registration after the park');
    expect(lines.some((l) => /parked: host .* is not known to the service: Host not found/.test(l))).toBe(true);
    const secondRegister = service.requests.findIndex((r, i) => i > 0 && isRegister(r));
    // One poll answered 404, then nothing until the park was over.
    expect(service.requests.slice(0, secondRegister).filter(isPoll)).toHaveLength(1);
    expect(service.requests[secondRegister]!.at - service.requests[1]!.at).toBeGreaterThanOrEqual(350);
  });

  it('backs off on 5xx polls with bounded exponential waits, and registers again after the maximum elapsed time', async () => {
    const { service, lines } = await start((r) => (isRegister(r) ? registered(INFRA_ENV, SERVICE_ID) : { status: 500, body: { code: '500', reason: 'boom' } }));
    await until(() => service.requests.filter(isRegister).length === 2, 4_000, 're-registration after failing polls');
    const firstRound = service.requests.slice(
      1,
      service.requests.findIndex((r, i) => i > 0 && isRegister(r)),
    );
    expect(firstRound.every(isPoll)).toBe(true);
    // 1 s of failures at 20 ms → 100 ms (×1.5, ±50 %): a bounded handful, not a spin.
    expect(firstRound.length).toBeGreaterThanOrEqual(6);
    expect(firstRound.length).toBeLessThan(30);
    const gaps = firstRound.slice(1).map((r, i) => r.at - firstRound[i]!.at);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(400);
    expect(lines.some((l) => /polling for instructions failed \(HTTP 500: boom\); retrying in/.test(l))).toBe(true);
    expect(lines.some((l) => /polling has failed for \d+ s .*registering again/.test(l))).toBe(true);
  });

  it('retries 503 in the transport, then waits --interval before registering again', async () => {
    let calls = 0;
    const { service } = await start(() => (++calls <= 4 ? { status: 503, body: 'gateway busy' } : registered(INFRA_ENV, SERVICE_ID)));
    await until(() => service.requests.some(isPoll), 3_000, 'first poll');
    const registers = service.requests.filter(isRegister).map((r) => r.at);
    // 1 attempt + 3 transport retries answered 503, then --interval, then success.
    expect(registers).toHaveLength(5);
    expect(registers[4]! - registers[3]!).toBeGreaterThanOrEqual(90);
  });

  it('rides out the service going away and coming back on the same port', async () => {
    const respond = (r: Recorded): Answer => (isRegister(r) ? registered(INFRA_ENV, SERVICE_ID) : steps([], 0.1));
    const service = await new FakeService(respond).start();
    services.push(service);
    const port = service.port;
    const { lines } = await start(respond, { service });
    await until(() => service.requests.filter(isPoll).length >= 2, 3_000, 'polling');
    await service.stop();
    await until(() => lines.some((l) => /polling for instructions failed \(.*(ECONNREFUSED|fetch failed).*\)/.test(l)), 3_000, 'network failure logged');
    const before = service.requests.length;
    await service.start(port);
    await until(() => service.requests.length > before, 3_000, 'polls resume');
  });

  it('stops a step at its timeout and replies a clear error', async () => {
    let aborted = false;
    const { service } = await start(
      (r) =>
        isRegister(r)
          ? registered(INFRA_ENV, SERVICE_ID)
          : isPoll(r)
            ? steps(service.requests.filter(isPoll).length === 1 ? [{ step_type: 'inventory' }] : [])
            : { status: 204 },
      {
        timing: { stepTimeoutsMs: { inventory: 200 } },
        steps: {
          inventory: (_request, context) =>
            new Promise((resolve) => {
              context.signal.addEventListener('abort', () => {
                aborted = true;
                resolve({ exit_code: 137, error: 'killed' });
              });
            }),
        },
      },
    );
    await until(() => replies(service).length === 1, 3_000, 'timeout reply');
    expect(aborted).toBe(true);
    expect(replies(service)[0]).toMatchObject({
      step_type: 'inventory',
      exit_code: EXIT_STEP_TIMEOUT,
      error: 'step inventory did not finish within 0 s and was stopped',
    });
  });

  it('on stop, aborts steps in flight and posts nothing for them', async () => {
    let stepSignal: AbortSignal | undefined;
    const harness = await start(
      (r) => (isRegister(r) ? registered(INFRA_ENV, SERVICE_ID) : isPoll(r) ? steps([{ step_type: 'install', args: ['{}'] }]) : { status: 204 }),
      {
        steps: {
          install: (_request, context) => {
            stepSignal = context.signal;
            return new Promise((resolve) => context.signal.addEventListener('abort', () => resolve({ exit_code: 1, error: 'aborted' })));
          },
        },
      },
    );
    await until(() => stepSignal, 3_000, 'install running');
    const stoppedAt = Date.now();
    harness.stop.abort();
    await harness.run;
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    expect(stepSignal!.aborted).toBe(true);
    expect(replies(harness.service)).toEqual([]);
  });

  it('does not start a step of a type that is still running from an earlier poll', async () => {
    let started = 0;
    let finish!: () => void;
    const running = new Promise<void>((resolve) => (finish = resolve));
    const { service } = await start(
      (r) =>
        isRegister(r)
          ? registered(INFRA_ENV, SERVICE_ID)
          : isPoll(r)
            ? steps([{ step_type: 'container-image-availability', args: ['{"images":["x"],"timeout":1}'] }], 0.05)
            : { status: 204 },
      {
        steps: {
          'container-image-availability': async () => {
            started += 1;
            await running;
            return { exit_code: 0, output: '{"images":[]}' };
          },
        },
      },
    );
    // Polls keep asking for the step while the first run of it has not ended: none starts another.
    await until(() => service.requests.filter(isPoll).length > 5, 10_000, 'six polls while the step runs');
    expect(started).toBe(1);
    finish();
    await until(() => started === 2, 10_000, 'the step started again once the first run ended');
  });

  it('runs a step handed again while its last reply is still being posted once that reply is sent, instead of dropping it', async () => {
    // The service stores a reply, then hands the check again (a new peer) before its answer to the
    // reply has reached the agent: dropping that check would leave the service waiting for it.
    let handed = 0;
    let holding = false;
    let handedWhileHeld = 0;
    let lastHanded = '';
    const started: string[] = [];
    const { service } = await start(
      async (r) => {
        if (isRegister(r)) return registered(INFRA_ENV, SERVICE_ID);
        if (isPoll(r)) {
          if (handed > 0 && !holding) return steps([], 0.05);
          handed += 1;
          if (holding) handedWhileHeld += 1;
          lastHanded = `connectivity-check-${handed}`;
          return steps([{ step_type: 'connectivity-check', step_id: lastHanded, args: ['[]'] }], 0.05);
        }
        if (isReply(r) && handed === 1 && !holding) {
          // The first reply is stored, and its answer held until the service has asked twice more.
          holding = true;
          await until(() => handedWhileHeld >= 2 || undefined, 5_000, 'two polls during the held reply');
          holding = false;
        }
        return { status: 204 };
      },
      {
        steps: {
          'connectivity-check': async (request) => {
            started.push(request.step_id);
            return { exit_code: 0, output: `{"remote_hosts":[],"run":${started.length}}` };
          },
        },
      },
    );
    await until(() => replies(service).length >= 2 || undefined, 5_000, 'the check handed during the held reply answered');
    await sleep(200);
    // The first run, then one more for every check handed while its reply was held (the latest).
    expect(started).toEqual(['connectivity-check-1', lastHanded]);
    expect(lastHanded).not.toBe('connectivity-check-1');
    expect(replies(service).map((reply) => reply.step_id)).toEqual(['connectivity-check-1', lastHanded]);
  });

  it('never writes the token to its log', async () => {
    const { service, lines } = await start((r) => (isRegister(r) ? registered(INFRA_ENV, SERVICE_ID) : { status: 503 }));
    await until(() => service.requests.filter(isPoll).length >= 3, 3_000, 'polls');
    expect(lines.join('\n')).not.toContain(TOKEN);
  });
});
