/**
 * The UI library's polling, paced by the live socket (docs/console.md, "Live updates"). The library
 * polls with bare timers (every 10 s on a cluster's page, 60 s on the list and the events); the
 * console's build hands those timers here instead (vite.config.ts, `livePollingOfUiLib`), so that:
 * - while the socket is healthy each poll waits at least LIVE_POLL_MS (60 s): the pushes say when
 *   to read, the slow poll only covers a message lost on the way;
 * - a pushed change makes every poll on the page run at once (`refetchNow`);
 * - when the socket is not healthy the polls run at the library's own pace again.
 */
export const LIVE_POLL_MS = 60_000;

interface Poll {
  run: () => void;
  everyMs: number;
  /** setInterval's kind (runs until stopped) or setTimeout's (runs once). */
  repeats: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

const polls = new Set<Poll>();
let live = false;
const listeners = new Set<(live: boolean) => void>();

function schedule(poll: Poll): void {
  clearTimeout(poll.timer);
  poll.timer = setTimeout(() => fire(poll), live ? Math.max(poll.everyMs, LIVE_POLL_MS) : poll.everyMs);
}

function fire(poll: Poll): void {
  if (poll.repeats) schedule(poll);
  else {
    clearTimeout(poll.timer);
    polls.delete(poll);
  }
  poll.run();
}

function start(run: () => void, everyMs: number | undefined, repeats: boolean): Poll {
  const poll: Poll = { run, everyMs: everyMs ?? 0, repeats };
  polls.add(poll);
  schedule(poll);
  return poll;
}

/** Stands in for the library's `setInterval(run, ms)`. */
export const pollEvery = (run: () => void, everyMs?: number): Poll => start(run, everyMs, true);
/** Stands in for the library's `setTimeout(run, ms)` that re-arms itself after each fetch. */
export const pollOnceAfter = (run: () => void, afterMs?: number): Poll => start(run, afterMs, false);
/** Stands in for `clearInterval`/`clearTimeout` of either. */
export function stopPolling(poll: Poll | undefined): void {
  if (!poll) return;
  clearTimeout(poll.timer);
  polls.delete(poll);
}

/** Runs every poll of the page now (a pushed change). */
export function refetchNow(): void {
  for (const poll of [...polls]) fire(poll);
}

export const isLive = (): boolean => live;

/** The socket became healthy or stopped being so: the polls wait accordingly from now. */
export function setLive(value: boolean): void {
  if (live === value) return;
  live = value;
  for (const poll of polls) schedule(poll);
  for (const listener of listeners) listener(live);
}

export function onLiveChange(listener: (live: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
