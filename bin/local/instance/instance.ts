/**
 * One function instance: a worker thread with a module graph of its own, as a Lambda container
 * has. It loads one handler of lambdas/functions.json and serves the invocations the runtime
 * routes to it. Nothing here is shared with the runtime or with other instances: every port is
 * built in this thread from the environment, except the DNS zones, whose stand-in (a file and a
 * DNS server) lives in the runtime and is reached through messages, as Route53 is reached over
 * the network.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { DnsRecord, DnsZones } from '../../../lambdas/ports/dns.js';
import { provide } from '../../../lambdas/platform/container.js';
import { PROJECT_ROOT } from '../../../lib/catalogue.js';
import { lambdaContext, type LambdaHandler } from '../functions.js';
import { deserializeError, serializeError, type FromInstance, type InstanceSpec, type RuntimePort, type ToInstance } from './protocol.js';
import type { SyntheticBaseImages } from '../../../lambdas/ports/synthetic-base-images.js';

const spec = workerData as InstanceSpec;
const port = parentPort!;
const send = (message: FromInstance) => port.postMessage(message);

/** This thread's CPU time so far, ms, with each answer: benches split a run's CPU by function (Node ≥ 22.19). */
const threadCpu = (): { cpuMs?: number } => {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  return usage ? { cpuMs: (usage.user + usage.system) / 1000 } : {};
};

let nextCall = 0;
const pendingCalls = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

function callRuntime(runtimePort: RuntimePort, method: string, args: unknown[]): Promise<unknown> {
  const id = nextCall++;
  return new Promise((resolve, reject) => {
    pendingCalls.set(id, { resolve, reject });
    send({ type: 'port-call', id, port: runtimePort, method, args });
  });
}

const remoteDnsZones: DnsZones = {
  upsert: (zone: string, records: DnsRecord[]) => callRuntime('dns', 'upsert', [zone, records]) as Promise<void>,
  remove: (zone: string, records: Pick<DnsRecord, 'name' | 'type'>[]) => callRuntime('dns', 'remove', [zone, records]) as Promise<void>,
  list: (zone: string) => callRuntime('dns', 'list', [zone]) as Promise<DnsRecord[]>,
};

const remoteSyntheticBaseImages: SyntheticBaseImages = {
  provide: (request) => callRuntime('syntheticBaseImages', 'provide', [request]) as Promise<void>,
};

async function start(): Promise<LambdaHandler> {
  // The runtime says whether it offers SYNTHETIC base ISOs (ASSISTED_SYNTHETIC_BASE_IMAGES), as a deployment fixes its configuration.
  provide({
    dns: remoteDnsZones,
    ...(process.env.ASSISTED_SYNTHETIC_BASE_IMAGES === 'on-first-use' ? { syntheticBaseImages: remoteSyntheticBaseImages } : {}),
  });
  const module = (await import(pathToFileURL(path.join(PROJECT_ROOT, spec.entry)).href)) as Record<string, unknown>;
  const handler = module[spec.handler];
  if (typeof handler !== 'function') throw new Error(`${spec.entry} does not export ${spec.handler}`);
  return handler as LambdaHandler;
}

const ready = start();
ready.then(
  () => send({ type: 'ready', ...threadCpu() }),
  (error: unknown) => send({ type: 'failed-to-start', error: serializeError(error) }),
);

port.on('message', (message: ToInstance) => {
  if (message.type === 'port-result') {
    const pending = pendingCalls.get(message.id);
    pendingCalls.delete(message.id);
    if (message.error) pending?.reject(deserializeError(message.error));
    else pending?.resolve(message.value);
    return;
  }
  void ready
    .then((handler) => handler(message.event, lambdaContext(spec.functionName, spec.timeoutMs)))
    .then(
      (value) => send({ type: 'result', id: message.id, value, ...threadCpu() }),
      (error: unknown) => send({ type: 'error', id: message.id, error: serializeError(error), ...threadCpu() }),
    );
});
