/**
 * The CLI's live change feed (cli/live.ts) against a stand-in WebSocket server: a change message
 * wakes the follower at once; a dropped connection or a refused subscription is a note on stderr
 * and polling at the command's interval.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { openChangeFeed } from '../../cli/live.js';

const servers: WebSocketServer[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    server.close();
  }
});

/** A server that answers each subscription with `answer` and hands the socket to `then`. */
async function standIn(answer: Record<string, unknown>, then: (socket: WebSocket) => void = () => undefined): Promise<{ url: string; headers: string[] }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const headers: string[] = [];
  server.on('connection', (socket, request) => {
    headers.push(String(request.headers.authorization));
    socket.on('message', () => {
      socket.send(JSON.stringify(answer));
      then(socket);
    });
  });
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/live`, headers };
}

const credentials = { url: 'http://unused.invalid', token: 'tok' };

describe('the CLI live change feed', () => {
  it('wakes the follower on a change message, long before its poll interval', async () => {
    let server: WebSocket | undefined;
    const { url, headers } = await standIn({ type: 'subscribed', subscription: 'cluster:c1' }, (socket) => (server = socket));
    const notes: string[] = [];
    const feed = await openChangeFeed(credentials, { cluster_id: 'c1' }, { url, warn: (line) => notes.push(line) });
    try {
      expect(feed.live).toBe(true);
      expect(headers).toEqual(['Bearer tok']);
      const started = Date.now();
      setTimeout(() => server!.send(JSON.stringify({ type: 'change', kind: 'cluster', id: 'c1', changed: ['status'] })), 100);
      await feed.next(60_000, 10_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(notes).toEqual([]);
    } finally {
      feed.close();
    }
  });

  it('falls back to polling, and says so, when the connection drops', async () => {
    let server: WebSocket | undefined;
    const { url } = await standIn({ type: 'subscribed', subscription: 'cluster:c1' }, (socket) => (server = socket));
    const notes: string[] = [];
    const feed = await openChangeFeed(credentials, { cluster_id: 'c1' }, { url, warn: (line) => notes.push(line) });
    try {
      server!.terminate();
      await feed.next(60_000, 10_000); // woken by the drop
      expect(feed.live).toBe(false);
      expect(notes).toEqual([expect.stringMatching(/^live changes: connection closed \(\d+\): polling instead$/)]);
      const started = Date.now();
      await feed.next(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      feed.close();
    }
  });

  it('polls when the subscription is refused or the socket is unreachable', async () => {
    const { url } = await standIn({ type: 'error', status: 404, reason: 'no cluster c1' });
    const notes: string[] = [];
    const refused = await openChangeFeed(credentials, { cluster_id: 'c1' }, { url, warn: (line) => notes.push(line) });
    refused.close();
    expect(refused.live).toBe(false);
    const unreachable = await openChangeFeed(credentials, { cluster_id: 'c1' }, { url: 'ws://127.0.0.1:9/live', warn: (line) => notes.push(line) });
    unreachable.close();
    expect(notes).toEqual([
      `live changes unavailable at ${url} (404 no cluster c1): polling instead`,
      expect.stringMatching(/^live changes unavailable at ws:\/\/127\.0\.0\.1:9\/live \(ECONNREFUSED\): polling instead$/),
    ]);
  });
});
