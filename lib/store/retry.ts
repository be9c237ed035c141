/**
 * The store's one retry policy. The SDK retries every call that failed for throttling or a transient
 * fault (lib/store/client.ts). Our own loops cover only what the SDK hands back as a success or a
 * final answer: items a batch left unprocessed, and transactions cancelled for throttling or a
 * conflicting transaction. Both use this backoff.
 */
export const retryPolicy = {
  /** Attempts of one SDK call, the first included. */
  sdkMaxAttempts: 3,
  /** Attempts of one batch chunk or one transaction in our own loops. */
  maxAttempts: 8,
  /** The first backoff; each retry doubles it, with full jitter. */
  baseDelayMs: 25,
};

export interface RetryOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Full jitter: a random wait up to `baseDelayMs` × 2^(retry − 1), so retrying callers spread out. */
export const backoff = (retry: number, baseDelayMs = retryPolicy.baseDelayMs) =>
  sleep(Math.random() * baseDelayMs * 2 ** (retry - 1));
