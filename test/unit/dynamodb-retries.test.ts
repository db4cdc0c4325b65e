import { describe, expect, it } from 'vitest';
import { unmeteredRetries } from '../../lambdas/adapters/dynamodb/retries.js';

describe('retries without the SDK retry quota (embedded runtime)', () => {
  it('retries throttling and transient errors up to the attempts, however many requests failed before', async () => {
    const strategy = unmeteredRetries(3);
    const first = await strategy.acquireInitialRetryToken('dynamodb');
    // The standard strategy's bucket (500 tokens, 5 a retry) would refuse past the 100th.
    const retried = await Promise.all(Array.from({ length: 300 }, () => strategy.refreshRetryTokenForRetry(first, { errorType: 'TRANSIENT' })));
    expect(retried.every((token) => token.getRetryCount() === 1)).toBe(true);
    const second = await strategy.refreshRetryTokenForRetry(retried[0]!, { errorType: 'THROTTLING' });
    expect(second.getRetryCount()).toBe(2);
    await expect(strategy.refreshRetryTokenForRetry(second, { errorType: 'TRANSIENT' })).rejects.toThrow('3 attempts made');
  });

  it('does not retry what a retry cannot fix', async () => {
    const strategy = unmeteredRetries(8);
    const first = await strategy.acquireInitialRetryToken('dynamodb');
    await expect(strategy.refreshRetryTokenForRetry(first, { errorType: 'CLIENT_ERROR' })).rejects.toThrow('CLIENT_ERROR');
  });
});
