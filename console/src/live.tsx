/**
 * Live updates (docs/console.md, "Live updates"): the console subscribes, over the service's
 * WebSocket (`/live`, docs/api.md "Live changes", with the session's token), to what the page shows:
 * the organisation's lists on the clusters list, a cluster and its infra-envs on a cluster's page.
 * Each change pushed makes the UI library's polls run at once (live-polling.ts); while the socket is
 * healthy those polls slow to 60 s, and when it closes or is refused they return to the library's
 * pace and the socket is tried again. The masthead's indicator says which.
 */
import React from 'react';
import { useLocation } from 'react-router-dom-v5-compat';
import { Label, Tooltip } from '@patternfly/react-core';
import { isLive, LIVE_POLL_MS, onLiveChange, refetchNow, setLive } from './live-polling';
import { CLUSTERS_PATH } from './routes';
import { apiRequest, currentToken } from './session';
import { liveSubprotocols } from '../../contracts/live-protocol';

export const LIVE_PATH = '/live';
/** A burst of changes (a host, its event, the cluster it moves) makes one refetch. */
const COALESCE_MS = 100;
/** Tries again after a closed or refused socket: 2 s, doubling up to 30 s. */
const RETRY_FIRST_MS = 2_000;
const RETRY_MOST_MS = 30_000;
/** Fields a change may carry that nothing on the page shows (an agent's check-in moves them). */
const UNSHOWN_FIELDS = new Set(['checked_in_at']);

type Subscribe = { org: true } | { cluster_id: string } | { infra_env_id: string };

const CLUSTER_PAGE = new RegExp(`^${CLUSTERS_PATH}/([0-9a-f-]{36})(?:/|$)`, 'i');

/** What the page at `pathname` shows, as subscriptions. */
/** What a page shows: a cluster's page its cluster and infra-envs, every other page the organisation's lists. */
async function subscriptionsFor(clusterId: string | undefined): Promise<Subscribe[]> {
  if (!clusterId) return [{ org: true }];
  // Hosts not yet bound to the cluster show on its page too: they belong to its infra-envs.
  const infraEnvs = await apiRequest<{ id: string }[]>('GET', `/v2/infra-envs?cluster_id=${clusterId}`).catch(() => []);
  return [{ cluster_id: clusterId }, ...infraEnvs.map((infraEnv) => ({ infra_env_id: infraEnv.id }))];
}

export function liveSocketUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${LIVE_PATH}`;
}

/** Keeps a socket subscribed to `subscriptions` until stopped, trying again after each close. */
function follow(subscriptions: Subscribe[], token: string): () => void {
  let stopped = false;
  let socket: WebSocket | undefined;
  let retryMs = RETRY_FIRST_MS;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let refetchTimer: ReturnType<typeof setTimeout> | undefined;
  const open = () => {
    // The token rides in a subprotocol, never in the URL (access logs keep URLs): contracts/live-protocol.ts.
    const ws = new WebSocket(liveSocketUrl(), liveSubprotocols(token));
    socket = ws;
    ws.onopen = () => {
      for (const subscription of subscriptions) ws.send(JSON.stringify({ action: 'subscribe', ...subscription }));
    };
    ws.onmessage = (message) => {
      let data: { type?: string; changed?: string[] };
      try {
        data = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (data.type === 'subscribed') {
        retryMs = RETRY_FIRST_MS;
        setLive(true);
      } else if (data.type === 'change' && (data.changed ?? []).some((field) => !UNSHOWN_FIELDS.has(field))) {
        refetchTimer ??= setTimeout(() => {
          refetchTimer = undefined;
          refetchNow();
        }, COALESCE_MS);
      }
    };
    // A refused handshake is an error then a close; either way: polling, and try again later.
    ws.onclose = () => {
      if (socket !== ws) return;
      setLive(false);
      if (stopped) return;
      retryTimer = setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MOST_MS);
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(retryTimer);
    clearTimeout(refetchTimer);
    socket?.close(1000, 'the page changed');
    socket = undefined;
    setLive(false);
  };
}

/** Follows what the current page shows, from inside the router; a new page subscribes anew. */
export const LiveUpdates: React.FC = () => {
  const { pathname } = useLocation();
  // Subscriptions follow the resource the page shows, not each path under it (its tabs, its steps).
  const clusterId = CLUSTER_PAGE.exec(pathname)?.[1];
  React.useEffect(() => {
    const token = currentToken();
    if (!token || typeof WebSocket === 'undefined') return undefined;
    let stop: (() => void) | undefined;
    let cancelled = false;
    void subscriptionsFor(clusterId).then((subscriptions) => {
      if (!cancelled) stop = follow(subscriptions, token);
    });
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [clusterId]);
  return null;
};

/** The masthead's "live" or "polling". */
export const LiveIndicator: React.FC = () => {
  const [live, setLiveShown] = React.useState(isLive());
  React.useEffect(() => onLiveChange(setLiveShown), []);
  return (
    <Tooltip
      content={
        live
          ? `Changes are pushed to this page as they happen; it also re-reads every ${LIVE_POLL_MS / 1000} s`
          : "No live connection: this page re-reads at the installer UI's own pace (every 10 s on a cluster)"
      }
    >
      <Label isCompact color={live ? 'green' : 'grey'} data-testid="live-indicator" data-live={live ? 'true' : 'false'} tabIndex={0}>
        {live ? 'live' : 'polling'}
      </Label>
    </Tooltip>
  );
};
