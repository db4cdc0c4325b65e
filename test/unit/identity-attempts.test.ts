import { describe, expect, it } from 'vitest';
import { ACCOUNT_ATTEMPTS, AttemptLimiter, lockoutText, newVerificationCode } from '../../bin/local/identity-attempts.js';

describe('identity stand-in attempt limits', () => {
  it('locks a key out after 5 free failures, for 1 s doubling to 15 minutes, per key', () => {
    let now = 0;
    const limiter = new AttemptLimiter({ ...ACCOUNT_ATTEMPTS }, () => now);
    const lockouts = Array.from({ length: 4 }, () => limiter.fail('a@example.com'));
    expect(lockouts).toEqual([0, 0, 0, 0]);
    expect(limiter.waitFor('a@example.com')).toBe(0);
    expect(limiter.fail('a@example.com')).toBe(1_000);
    expect(limiter.waitFor('a@example.com')).toBe(1_000);
    expect(limiter.waitFor('b@example.com')).toBe(0);
    now += 1_000;
    expect(limiter.waitFor('a@example.com')).toBe(0);
    expect(limiter.fail('a@example.com')).toBe(2_000);
    expect(limiter.fail('a@example.com')).toBe(4_000);
    for (let i = 0; i < 20; i++) limiter.fail('a@example.com');
    expect(limiter.waitFor('a@example.com')).toBe(15 * 60_000);
  });

  it('forgets a count after a quiet spell, clears an account on success, and remembers a bounded number of keys', () => {
    let now = 0;
    const limiter = new AttemptLimiter({ ...ACCOUNT_ATTEMPTS }, () => now, 100);
    for (let i = 0; i < 5; i++) limiter.fail('quiet');
    now += 16 * 60_000;
    expect(limiter.waitFor('quiet')).toBe(0);
    expect(limiter.fail('quiet')).toBe(0);

    for (let i = 0; i < 5; i++) limiter.fail('lucky');
    limiter.succeed('lucky');
    expect(limiter.fail('lucky')).toBe(0);

    for (let i = 0; i < 5; i++) limiter.fail('locked');
    for (let i = 0; i < 100; i++) limiter.fail(`spray-${i}@example.com`);
    // 100 keys are kept: the three quietest ('quiet', 'lucky', 'locked') are forgotten.
    expect(limiter.waitFor('locked')).toBe(0);
    expect(limiter.waitFor('spray-98@example.com')).toBe(0);
  });

  it('makes six-digit codes over the whole range, leading zeros included', () => {
    const codes = Array.from({ length: 3_000 }, newVerificationCode);
    expect(codes.every((code) => /^\d{6}$/.test(code))).toBe(true);
    // A code below 100000 is 1 in 10: never seeing one in 3,000 would mean a narrower range.
    expect(codes.some((code) => code.startsWith('0'))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(2_900);
  });

  it('says how long a lockout lasts', () => {
    expect(lockoutText(1)).toBe('1 second');
    expect(lockoutText(1_500)).toBe('2 seconds');
    expect(lockoutText(15 * 60_000)).toBe('15 minutes');
  });
});
