/**
 * The console's live-paced polls (console/src/live-polling.ts): a push that lands while a read is
 * under way is owed a second run once the reads end, because the UI library drops a refetch asked
 * for while its own fetch of the cluster is under way (seen in test/console/live-updates.test.ts:
 * a host's stage showed only at the next push).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type LivePolling = typeof import('../../console/src/live-polling.js');

describe('console: live polls and reads under way', () => {
  let polling: LivePolling;
  let runs: number;

  beforeEach(async () => {
    vi.useFakeTimers();
    // The module keeps the page's polls and reads: a fresh copy for each case.
    vi.resetModules();
    polling = await import('../../console/src/live-polling.js');
    polling.setLive(true);
    runs = 0;
    // The library's cluster poll: a 10 s interval, slowed to 60 s while live.
    polling.pollEvery(() => {
      runs += 1;
    }, 10_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the polls once for a push when no read is under way', () => {
    polling.refetchNow();
    expect(runs).toBe(1);
    vi.advanceTimersByTime(5_000);
    expect(runs).toBe(1);
  });

  it('runs them again once the reads under way at a push have ended, and only once', () => {
    polling.readStarted();
    polling.readStarted();
    polling.refetchNow();
    polling.refetchNow();
    expect(runs).toBe(2);
    polling.readEnded();
    vi.advanceTimersByTime(1_000);
    expect(runs, 'a read is still under way').toBe(2);
    polling.readEnded();
    vi.advanceTimersByTime(49);
    expect(runs, 'the library settles its own state first').toBe(2);
    vi.advanceTimersByTime(1);
    expect(runs).toBe(3);
    // The owed run's own reads owe nothing.
    polling.readStarted();
    polling.readEnded();
    vi.advanceTimersByTime(5_000);
    expect(runs).toBe(3);
  });

  it('owes nothing for a read that starts after the push', () => {
    polling.refetchNow();
    polling.readStarted();
    polling.readEnded();
    vi.advanceTimersByTime(5_000);
    expect(runs).toBe(1);
  });

  it('still waits 60 s between polls while live with no push', () => {
    vi.advanceTimersByTime(59_999);
    expect(runs).toBe(0);
    vi.advanceTimersByTime(1);
    expect(runs).toBe(1);
  });
});
