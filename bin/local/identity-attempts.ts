/**
 * What the identity stand-in holds against guessing, as Amazon Cognito does: failed attempts are
 * counted per key (an account's email, a source address); after a few free failures the key is
 * locked out for a second, and each further failure doubles the lockout, up to 15 minutes. Counts
 * are forgotten once a key has been quiet long enough. Keys are emails whether or not an account
 * exists, so a lockout says nothing about which accounts do.
 *
 * Also the verification codes themselves: six digits from the operating system's CSPRNG.
 */
import { randomInt } from 'node:crypto';

export interface AttemptPolicy {
  /** Failures allowed before the first lockout. */
  freeFailures: number;
  /** The first lockout; each further failure doubles it. */
  firstLockoutMs: number;
  maxLockoutMs: number;
  /** A key with no failure for this long starts again from zero. */
  forgetAfterMs: number;
}

const MINUTE = 60_000;

/** Cognito's sign-in lockout: 5 failures, then 1 s doubling to about 15 minutes. */
export const ACCOUNT_ATTEMPTS: AttemptPolicy = { freeFailures: 5, firstLockoutMs: 1_000, maxLockoutMs: 15 * MINUTE, forgetAfterMs: 15 * MINUTE };
/** One address trying many accounts (password spraying): more slack, the same doubling. */
export const SOURCE_ATTEMPTS: AttemptPolicy = { freeFailures: 30, firstLockoutMs: 1_000, maxLockoutMs: 15 * MINUTE, forgetAfterMs: 15 * MINUTE };
/** Messages sent to one address: a few, then a minute's wait, doubling. */
export const CODE_SENDS: AttemptPolicy = { freeFailures: 5, firstLockoutMs: MINUTE, maxLockoutMs: 15 * MINUTE, forgetAfterMs: 60 * MINUTE };

/** Wrong entries of one code before it is void and a new one must be asked for. */
export const WRONG_CODES_PER_CODE = 5;

interface Count {
  failures: number;
  lockedUntil: number;
  lastFailure: number;
}

export class AttemptLimiter {
  private readonly counts = new Map<string, Count>();

  /**
   * `policy` is read at each call, so a test (or an operator at a REPL) may change it live.
   * At most `maxKeys` keys are remembered: the quietest are forgotten first, so a flood of made-up
   * emails costs memory that is bounded.
   */
  constructor(
    readonly policy: AttemptPolicy,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 20_000,
  ) {}

  /** Milliseconds until `key` may try again; 0 when it may now. */
  waitFor(key: string): number {
    const count = this.current(key);
    return count ? Math.max(0, count.lockedUntil - this.now()) : 0;
  }

  /** Counts a failure of `key`; answers the lockout it now has (0 while failures are free). */
  fail(key: string): number {
    const now = this.now();
    const count = this.current(key) ?? { failures: 0, lockedUntil: 0, lastFailure: now };
    count.failures += 1;
    count.lastFailure = now;
    const beyond = count.failures - this.policy.freeFailures;
    const lockout = beyond < 0 ? 0 : Math.min(this.policy.maxLockoutMs, this.policy.firstLockoutMs * 2 ** Math.min(beyond, 30));
    count.lockedUntil = now + lockout;
    // Re-inserted last: the map's order is then quietest first.
    this.counts.delete(key);
    this.counts.set(key, count);
    while (this.counts.size > this.maxKeys) this.counts.delete(this.counts.keys().next().value!);
    return lockout;
  }

  /** A success clears the key's count (an account's; a source's is kept: an attacker has accounts too). */
  succeed(key: string): void {
    this.counts.delete(key);
  }

  clear(): void {
    this.counts.clear();
  }

  private current(key: string): Count | undefined {
    const count = this.counts.get(key);
    if (count && this.now() - count.lastFailure > Math.max(this.policy.forgetAfterMs, count.lockedUntil - count.lastFailure)) {
      this.counts.delete(key);
      return undefined;
    }
    return count;
  }
}

/** Six digits, each of the million equally likely (leading zeros too), from crypto's randomInt. */
export const newVerificationCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** "2 seconds", "15 minutes": how long a lockout lasts, rounded up, for the page that says so. */
export function lockoutText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1_000));
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}
