/**
 * Retries without the SDK's retry quota. The standard strategy spends tokens from a bucket of 500
 * per client on every retry (5, or 10 after a time-out) and stops retrying once it is empty, to
 * keep a client from storming a service in an outage. DynamoDB Local answers a burst of writers
 * with lock time-outs ("This request will succeed in actual DynamoDB API") by the hundred: the
 * bucket of an instance serving a fleet empties in a second, and every request after that fails on
 * its first time-out. The embedded runtime (DYNAMODB_RETRY_QUOTA=off) uses this instead; in AWS
 * the standard strategy stands.
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { backoffMs } from '../../domain/core/backoff.js';
import { setTimeout as sleep } from 'node:timers/promises';

type RetryStrategyV2 = Extract<NonNullable<DynamoDBClientConfig['retryStrategy']>, { acquireInitialRetryToken: unknown }>;
type RetryErrorInfo = Parameters<RetryStrategyV2['refreshRetryTokenForRetry']>[1];

const BASE_DELAY_MS = 25;
const MAX_DELAY_MS = 2_000;

const token = (retryCount: number) => ({ getRetryCount: () => retryCount, getRetryDelay: () => 0, getRetryCost: () => 0 });

/** Full-jitter exponential backoff on throttling and transient errors (5xx, resets, time-outs), up to `maxAttempts` in all. */
export function unmeteredRetries(maxAttempts: number): RetryStrategyV2 {
  return {
    async acquireInitialRetryToken() {
      return token(0);
    },
    async refreshRetryTokenForRetry(previous, errorInfo: RetryErrorInfo) {
      const retries = previous.getRetryCount() + 1;
      const retryable = errorInfo.errorType === 'THROTTLING' || errorInfo.errorType === 'TRANSIENT';
      if (!retryable || retries >= maxAttempts) throw new Error(`No retry: ${retryable ? `${maxAttempts} attempts made` : `a ${errorInfo.errorType} error`}`);
      await sleep(backoffMs(retries, { baseMs: BASE_DELAY_MS, capMs: MAX_DELAY_MS }));
      return token(retries);
    },
    recordSuccess() {},
  };
}
