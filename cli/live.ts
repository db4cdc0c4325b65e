/**
 * The service's live changes (ws://HOST:PORT/live, docs/api.md "Live changes") as a trigger for
 * the commands that follow something: a message says only *that* a record changed, so a command
 * re-reads what it shows through the REST API (with its own credentials) on each one. When the
 * socket cannot be opened, is refused, or drops, the feed says so on stderr and falls back to
 * polling at the command's interval: following never depends on the socket.
 */
import WebSocket from 'ws';
import type { Credentials } from './api.js';

/** What to subscribe to: a cluster or an infra-env (their hosts and events come with them). */
export type LiveSubscription = { cluster_id: string } | { infra_env_id: string };

export interface ChangeFeed {
  /**
   * Resolves once something changed since the last call (at once if a message already came), or
   * after `pollMs` while polling. While the socket is up it still resolves after `safetyMs`, so a
   * message lost in transit delays an update, never stops it. Never waits longer than `limitMs`.
   */
  next(pollMs: number, limitMs?: number): Promise<void>;
  /** Whether changes currently come over the socket (false: polling). */
  readonly live: boolean;
  close(): void;
}

/** The WebSocket URL: `--live-url`/$ASSISTED_LIVE_URL (AWS serves it on its own endpoint), else the service's own `/live`. */
export function liveUrl(credentials: Credentials, override?: string): string {
  if (override) return override;
  return `${credentials.url.replace(/\/+$/, '').replace(/^http/, 'ws')}/live`;
}

/** Open and subscribed within this long, or the feed polls. */
const CONNECT_TIMEOUT_MS = 10_000;
/** While live, re-read at least this often anyway. */
const SAFETY_MS = 60_000;

/**
 * A feed of changes of `subscription`; never rejects: any failure to connect or subscribe is a
 * note on stderr and a polling feed.
 */
export async function openChangeFeed(
  credentials: Credentials,
  subscription: LiveSubscription | undefined,
  options: { url?: string; warn?: (line: string) => void; safetyMs?: number } = {},
): Promise<ChangeFeed> {
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const safetyMs = options.safetyMs ?? SAFETY_MS;
  let changed = false;
  let live = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    changed = true;
    wake?.();
  };

  let socket: WebSocket | undefined;
  if (!subscription) {
    warn('live changes need a cluster or an infra-env to subscribe to: polling instead');
  } else {
    const url = liveUrl(credentials, options.url);
    const failure = await new Promise<string | undefined>((resolve) => {
      let settled = false;
      const settle = (reason?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(reason);
      };
      const timer = setTimeout(() => settle(`no subscription within ${CONNECT_TIMEOUT_MS / 1000}s`), CONNECT_TIMEOUT_MS);
      try {
        socket = new WebSocket(url, { headers: { Authorization: `Bearer ${credentials.token}` }, handshakeTimeout: CONNECT_TIMEOUT_MS });
      } catch (error) {
        settle((error as Error).message);
        return;
      }
      socket.on('open', () => socket!.send(JSON.stringify({ action: 'subscribe', ...subscription })));
      socket.on('unexpected-response', (_request, response) => settle(`refused with ${response.statusCode}`));
      socket.on('error', (error: Error & { code?: string }) => settle(error.code ?? error.message));
      socket.on('close', (code) => {
        if (!settled) settle(`closed (${code})`);
        else if (live) {
          live = false;
          warn(`live changes: connection closed (${code}): polling instead`);
          signal();
        }
      });
      socket.on('message', (data) => {
        let message: { type?: string; status?: number; reason?: string };
        try {
          message = JSON.parse(data.toString()) as typeof message;
        } catch {
          return;
        }
        if (message.type === 'subscribed') {
          live = true;
          settle();
        } else if (message.type === 'error' && !settled) settle(`${message.status ?? ''} ${message.reason ?? ''}`.trim());
        else if (message.type === 'change') signal();
      });
    });
    if (failure !== undefined) {
      warn(`live changes unavailable at ${url} (${failure}): polling instead`);
      socket?.removeAllListeners();
      socket?.on('error', () => undefined);
      socket?.terminate();
      socket = undefined;
    }
  }

  return {
    get live() {
      return live;
    },
    async next(pollMs: number, limitMs = Number.POSITIVE_INFINITY) {
      if (changed) {
        changed = false;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(live ? Math.max(safetyMs, pollMs) : pollMs, limitMs));
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
      changed = false;
    },
    close() {
      wake?.();
      if (socket) {
        live = false;
        socket.removeAllListeners();
        socket.on('error', () => undefined);
        socket.close();
        socket.terminate();
      }
    },
  };
}
