/**
 * Splitting work into calls and running them a few at a time, and waiting between retries: generic
 * helpers with no knowledge of DynamoDB, SQS or the domain. A leaf module: it imports nothing.
 */

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/**
 * Consecutive groups of at most `maxCount` items and `maxBytes` bytes together, as `bytesOf` counts
 * them: DynamoDB refuses a call past either. An item larger than `maxBytes` alone goes alone (the
 * service refuses such items before writing, so the call's own error would be a fault here).
 */
export function chunkWithin<T>(
  items: readonly T[],
  maxCount: number,
  maxBytes: number,
  bytesOf: (item: T) => number,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (current.length > 0 && (current.length === maxCount || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Runs `work` over `inputs` with at most `concurrency` in flight, keeping results in input order.
 * After a failure no further input is started, and the failure is thrown only once the calls in
 * flight have ended: nothing keeps writing after the request has been answered.
 */
export async function inParallel<T, R>(
  inputs: readonly T[],
  concurrency: number,
  work: (input: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(inputs.length);
  const failures: unknown[] = [];
  // One iterator shared by the workers: each takes the next input when it is free.
  const pending = inputs.entries();
  const worker = async () => {
    for (const [index, input] of pending) {
      try {
        results[index] = await work(input);
      } catch (error) {
        failures.push(error);
      }
      if (failures.length > 0) return;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
  if (failures.length > 0) throw failures[0];
  return results;
}

/** The first backoff of a retry loop; each retry doubles it, with full jitter. */
export const BACKOFF_BASE_DELAY_MS = 25;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Full jitter: a random wait up to `baseDelayMs` × 2^(retry − 1), so retrying callers spread out. */
export const backoff = (retry: number, baseDelayMs = BACKOFF_BASE_DELAY_MS) =>
  sleep(Math.random() * baseDelayMs * 2 ** (retry - 1));
