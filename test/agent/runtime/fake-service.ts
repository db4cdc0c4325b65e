/**
 * A small stand-in for the service's agent endpoints on 127.0.0.1, for the session's behaviour
 * tests: each test decides the answers and reads back what the agent sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly raw: Buffer;
  readonly at: number;
}

export interface Answer {
  readonly status: number;
  readonly body?: unknown;
}

export type Responder = (request: Recorded) => Answer | Promise<Answer>;

export class FakeService {
  readonly requests: Recorded[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(public respond: Responder) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const raw = Buffer.concat(chunks);
        const recorded: Recorded = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: raw.toString('utf8'),
          raw,
          at: Date.now(),
        };
        this.requests.push(recorded);
        Promise.resolve(this.respond(recorded)).then(
          (answer) => {
            const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
            res.writeHead(answer.status, text ? { 'Content-Type': 'application/json' } : {});
            res.end(text);
          },
          (error: Error) => {
            res.writeHead(500);
            res.end(error.message);
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  matching(method: string, pattern: RegExp): Recorded[] {
    return this.requests.filter((r) => r.method === method && pattern.test(r.path));
  }
}

export const registered = (infraEnvId: string, pollHostId: string, extra: Record<string, unknown> = {}): Answer => ({
  status: 201,
  body: {
    id: pollHostId,
    infra_env_id: infraEnvId,
    status: 'discovering',
    ...extra,
    next_step_runner_command: {
      command: '',
      args: [JSON.stringify({ infra_env_id: infraEnvId, host_id: pollHostId, agent_version: 'quay.io/example/agent:test' })],
      retry_seconds: 60,
    },
  },
});

export const steps = (
  instructions: { step_type: string; step_id?: string; args?: string[] }[],
  nextSeconds = 60,
  action: 'continue' | 'exit' = 'continue',
): Answer => ({
  status: 200,
  body: {
    next_instruction_seconds: nextSeconds,
    post_step_action: action,
    instructions: instructions.map((s, i) => ({ step_id: `${s.step_type}-${String(i).padStart(8, '0')}`, args: [], ...s })),
  },
});
