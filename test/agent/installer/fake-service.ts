/**
 * A small stand-in for the service endpoints the installer and controller call, on 127.0.0.1. It keeps a
 * cluster with hosts, applies progress PUTs to them and records every call, so tests can assert on the
 * exact sequence. The real endpoints are tested against the real service elsewhere.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentLog, ApiCallOptions, ApiResponse, ApiTransport, StepContext } from '../../../agent/src/contracts.js';
import { runCommand } from '../../../agent/src/exec.js';

export interface FakeHost {
  id: string;
  infra_env_id: string;
  role: string;
  bootstrap?: boolean;
  kind?: string;
  status?: string;
  requested_hostname?: string;
  progress: { current_stage?: string; progress_info?: string };
}

export interface FakeCluster {
  id: string;
  status: string;
  kind?: string;
  openshift_version?: string;
  control_plane_count?: number;
  hosts: FakeHost[];
}

export interface RecordedCall {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: unknown;
  readonly at: number;
}

export interface FakeServiceOptions {
  cluster: FakeCluster;
  hostIgnition?: string;
  bootstrapIgnition?: string;
  monitoredOperators?: { name: string; operator_type: string; status?: string; version?: string }[];
  /** Move the cluster to finalizing once every host is Done (as the service does). */
  finalizeWhenAllDone?: boolean;
  /** Status to answer GET cluster with, overriding everything (404 tests). */
  clusterStatusCode?: number;
}

/** A complete upstream-shaped InstallCmdRequest. */
export const VALID_REQUEST = {
  cluster_id: '11111111-1111-1111-1111-111111111111',
  infra_env_id: '22222222-2222-2222-2222-222222222222',
  host_id: '33333333-3333-3333-3333-333333333333',
  role: 'master',
  boot_device: '/dev/sda',
  controller_image: 'quay.io/edge-infrastructure/assisted-installer-controller:latest',
  installer_image: 'quay.io/edge-infrastructure/assisted-installer:latest',
  control_plane_count: 3,
  openshift_version: '4.16.3',
  installer_args: '["--append-karg","ip=192.0.2.2::192.0.2.254:255.255.255.0:core0.example.com:enp1s0:none","--save-partindex","1","-n"]',
  disks_to_format: ['/dev/sdb'],
  proxy: { http_proxy: 'http://proxy.example.com:3128', no_proxy: '.example.com,10.0.0.0/8' },
  must_gather_image: '{"ocp":"quay.io/openshift/must-gather:latest","cnv":"registry.example.com/cnv/must-gather:v4"}',
};

export const IGNITION = JSON.stringify({ ignition: { version: '3.2.0' }, storage: { files: [] } });

export class FakeService {
  readonly calls: RecordedCall[] = [];
  private server?: Server;
  baseUrl = '';

  constructor(readonly options: FakeServiceOptions) {}

  get cluster(): FakeCluster {
    return this.options.cluster;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      void this.handle(request).then(
        ({ status, body, raw }) => {
          response.writeHead(status, { 'content-type': raw ? 'application/octet-stream' : 'application/json' });
          response.end(raw ?? (body === undefined ? '' : JSON.stringify(body)));
        },
        (error: Error) => {
          response.writeHead(500);
          response.end(JSON.stringify({ reason: error.message }));
        },
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/api/assisted-install`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Stages reported for a host, in order (consecutive repeats included). */
  progressOf(hostId: string): { current_stage: string; progress_info: string }[] {
    return this.calls
      .filter((call) => call.method === 'PUT' && call.path.endsWith(`/hosts/${hostId}/progress`))
      .map((call) => call.body as { current_stage: string; progress_info: string });
  }

  callsTo(method: string, pathSuffix: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method && call.path.endsWith(pathSuffix));
  }

  private async handle(request: IncomingMessage): Promise<{ status: number; body?: unknown; raw?: string }> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body: unknown = text ? JSON.parse(text) : undefined;
    const path = url.pathname.replace(/^\/api\/assisted-install/, '');
    const method = request.method ?? 'GET';
    this.calls.push({ method, path, query: Object.fromEntries(url.searchParams), body, at: Date.now() });
    const cluster = this.cluster;
    let match: RegExpMatchArray | null;

    if ((match = path.match(/^\/v2\/infra-envs\/([^/]+)\/hosts\/([^/]+)\/progress$/)) && method === 'PUT') {
      const host = cluster.hosts.find((candidate) => candidate.id === match![2]);
      if (!host) return { status: 404, body: { reason: 'no such host' } };
      const progress = body as { current_stage: string; progress_info?: string };
      host.progress = { current_stage: progress.current_stage, progress_info: progress.progress_info };
      if (progress.current_stage === 'Failed') host.status = 'error';
      if (this.options.finalizeWhenAllDone && cluster.status === 'installing' && cluster.hosts.every((h) => h.progress.current_stage === 'Done')) {
        cluster.status = 'finalizing';
      }
      return { status: 200 };
    }
    if (path.match(/^\/v2\/infra-env\/[^/]+\/hosts\/[^/]+\/downloads\/ignition$/) && method === 'GET') {
      return { status: 200, raw: this.options.hostIgnition ?? IGNITION };
    }
    if (path === `/v2/clusters/${cluster.id}/downloads/files` && method === 'GET') {
      if (url.searchParams.get('file_name') !== 'bootstrap.ign') return { status: 400, body: { reason: 'file_name' } };
      return { status: 200, raw: this.options.bootstrapIgnition ?? IGNITION };
    }
    if (path === `/v2/clusters/${cluster.id}` && method === 'GET') {
      if (this.options.clusterStatusCode) return { status: this.options.clusterStatusCode, body: { reason: 'forced' } };
      return { status: 200, body: structuredClone(cluster) };
    }
    if (path === `/v2/clusters/${cluster.id}/progress` && method === 'PUT') return { status: 200 };
    if (path === `/v2/clusters/${cluster.id}/monitored-operators` && method === 'GET') return { status: 200, body: this.options.monitoredOperators ?? [] };
    if (path === `/v2/clusters/${cluster.id}/monitored-operators` && method === 'PUT') {
      const report = body as { name: string; status: string };
      const operator = this.options.monitoredOperators?.find((candidate) => candidate.name === report.name);
      if (operator) operator.status = report.status;
      return { status: 200 };
    }
    if (path === `/v2/clusters/${cluster.id}/uploads/ingress-cert` && method === 'POST') return { status: 201 };
    if (path === `/v2/clusters/${cluster.id}/actions/complete-installation` && method === 'POST') {
      cluster.status = 'installed';
      return { status: 202, body: cluster };
    }
    return { status: 404, body: { reason: `fake service has no ${method} ${path}` } };
  }
}

/** One attempt per call, straight to the fake service. */
export function fetchTransport(baseUrl: string): ApiTransport {
  return {
    async call(method, path, options: ApiCallOptions = {}): Promise<ApiResponse> {
      const url = new URL(baseUrl + path);
      for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
      const response = await fetch(url, {
        method,
        headers: options.json !== undefined ? { 'content-type': 'application/json' } : undefined,
        body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
        signal: options.signal,
      });
      return {
        status: response.status,
        headers: response.headers,
        text: () => response.text(),
        json: <T>() => response.json() as Promise<T>,
        bytes: async () => new Uint8Array(await response.arrayBuffer()),
      };
    },
  };
}

export interface CapturedLog extends AgentLog {
  readonly lines: { level: string; message: string }[];
}

export function captureLog(): CapturedLog {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function stepContext(service: FakeService, hostId: string, infraEnvId: string, signal: AbortSignal, log: AgentLog = captureLog()): StepContext {
  return { hostId, infraEnvId, api: fetchTransport(service.baseUrl), exec: runCommand, log, signal };
}

/** Stage names in order with consecutive repeats (progress percentages, second info lines) folded. */
export function distinctStages(progress: readonly { current_stage: string }[]): string[] {
  const stages: string[] = [];
  for (const { current_stage } of progress) if (stages[stages.length - 1] !== current_stage) stages.push(current_stage);
  return stages;
}
