import { BACKOFF_BASE_DELAY_MS } from '#lib/concurrency';

/**
 * The store's one retry policy. The SDK retries every call that failed for throttling or a transient
 * fault (lib/store/dynamo/client.ts). Our own loops cover only what the SDK hands back as a success or a
 * final answer: items a batch left unprocessed, and transactions cancelled for throttling or a
 * conflicting transaction. Both use this backoff.
 */
export const retryPolicy = {
  /** Attempts of one SDK call, the first included. */
  sdkMaxAttempts: 3,
  /** Attempts of one batch chunk or one transaction in our own loops. */
  maxAttempts: 8,
  /** The first backoff; each retry doubles it, with full jitter. */
  baseDelayMs: BACKOFF_BASE_DELAY_MS,
};

export interface RetryOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
}
