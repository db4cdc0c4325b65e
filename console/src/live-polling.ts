/**
 * The UI library's polling, paced by the live socket (docs/console.md, "Live updates"). The library
 * polls with bare timers (every 10 s on a cluster's page, 60 s on the list and the events); the
 * console's build hands those timers here instead (vite.config.ts, `livePollingOfUiLib`), so that:
 * - while the socket is healthy each poll waits at least LIVE_POLL_MS (60 s): the pushes say when
 *   to read, the slow poll only covers a message lost on the way;
 * - a pushed change makes every poll on the page run at once (`refetchNow`), and once more when the
 *   reads that were in flight at the push have ended (see `readStarted`);
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

function fireAll(): void {
  for (const poll of [...polls]) fire(poll);
}

/**
 * Reads of the API under way (the library's clients count them, ui-lib-auth.ts). The library drops
 * a refetch asked for while its own fetch of the cluster is under way (its slice's forceReload is
 * cancelled while RELOADING), and that fetch may have read the cluster before the change: a push
 * that lands then would show only at the next push, or the 60 s poll. So it is owed: every poll
 * runs again once those reads have ended.
 */
let readsInFlight = 0;
let refetchOwed = false;
/** After the last read ends, the library settles its state (fulfilled) before it can fetch again. */
const OWED_REFETCH_AFTER_MS = 50;

export function readStarted(): void {
  readsInFlight += 1;
}

export function readEnded(): void {
  readsInFlight = Math.max(0, readsInFlight - 1);
  if (readsInFlight > 0 || !refetchOwed) return;
  refetchOwed = false;
  // Once, not as a push: reads the owed run starts owe nothing themselves.
  setTimeout(fireAll, OWED_REFETCH_AFTER_MS);
}

/** Runs every poll of the page now (a pushed change), and again after the reads under way end. */
export function refetchNow(): void {
  if (readsInFlight > 0) refetchOwed = true;
  fireAll();
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
