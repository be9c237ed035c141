import { BatchGetCommand, BatchWriteCommand, type BatchWriteWriteRequest } from '@aws-sdk/lib-dynamodb';
import { UnavailableError } from '#lib/errors';
import { documentClient, tableName } from '#lib/store/client';
import { ensureTimeLeft } from '#lib/store/deadline';
import type { Item } from '#lib/store/items';
import type { Key } from '#lib/store/keys';
import { dynamoDbLimits, itemBytesAtMost } from '#lib/store/limits';
import { backoff, type RetryOptions, retryPolicy } from '#lib/store/retry';

/** DynamoDB's own ceilings per call. */
const BATCH_GET_LIMIT = dynamoDbLimits.batchGetKeys;
export const BATCH_WRITE_LIMIT = dynamoDbLimits.batchWriteItems;

const requestBytes = (request: WriteRequest) =>
  'PutRequest' in request
    ? itemBytesAtMost(request.PutRequest.Item)
    : itemBytesAtMost(request.DeleteRequest.Key);

export interface BatchOptions extends RetryOptions {
  /** Milliseconds left for the whole request; no new call starts when too little is left. */
  remainingTimeMs?: () => number;
  /** Calls in flight at once. */
  concurrency?: number;
}

const DEFAULT_CONCURRENCY = 4;

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
  let next = 0;
  const worker = async () => {
    while (next < inputs.length && failures.length === 0) {
      const index = next++;
      try {
        results[index] = await work(inputs[index] as T);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
  if (failures.length > 0) throw failures[0];
  return results;
}

/**
 * Retries what DynamoDB left unprocessed, with exponential backoff and full jitter, until nothing is
 * left or the attempts run out (then 503: everything written so far is safe to write again).
 */
async function untilProcessed<T>(
  first: T,
  call: (pending: T) => Promise<T | undefined>,
  options: BatchOptions,
): Promise<void> {
  const { maxAttempts = retryPolicy.maxAttempts, baseDelayMs = retryPolicy.baseDelayMs } = options;
  let pending: T | undefined = first;
  for (let attempt = 1; pending !== undefined; attempt++) {
    if (attempt > maxAttempts) throw new UnavailableError();
    if (attempt > 1) await backoff(attempt - 1, baseDelayMs);
    ensureTimeLeft(options.remainingTimeMs);
    pending = await call(pending);
  }
}

/** Reads every key (any number), 100 per BatchGet, strongly consistent. Missing items are simply absent. */
/**
 * `eventuallyConsistent`: half the read units, for reads that join what an index query (itself
 * never strongly consistent) returned.
 */
export async function batchGetAll(
  keys: readonly Key[],
  options: BatchOptions & { eventuallyConsistent?: boolean } = {},
): Promise<Item[]> {
  const table = tableName();
  const found: Item[] = [];
  await inParallel(chunk(keys, BATCH_GET_LIMIT), options.concurrency ?? DEFAULT_CONCURRENCY, (slice) =>
    untilProcessed<Item[]>(
      slice,
      async (pending) => {
        const result = await documentClient().send(
          new BatchGetCommand({
            RequestItems: { [table]: { Keys: pending, ConsistentRead: !options.eventuallyConsistent } },
          }),
        );
        found.push(...(result.Responses?.[table] ?? []));
        const unprocessed = result.UnprocessedKeys?.[table]?.Keys;
        return unprocessed && unprocessed.length > 0 ? unprocessed : undefined;
      },
      options,
    ),
  );
  return found;
}

export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

/**
 * Writes every request (any number), 25 and at most 16 MB per BatchWrite, several in flight. Puts and
 * deletes are idempotent.
 */
export async function batchWriteAll(
  requests: readonly WriteRequest[],
  options: BatchOptions = {},
): Promise<void> {
  const table = tableName();
  const calls = chunkWithin(requests, BATCH_WRITE_LIMIT, dynamoDbLimits.batchWriteBytes, requestBytes);
  await inParallel(calls, options.concurrency ?? DEFAULT_CONCURRENCY, (slice) =>
    // What DynamoDB leaves unprocessed comes back in the SDK's request shape, and goes out again in it.
    untilProcessed<BatchWriteWriteRequest[]>(
      slice,
      async (pending) => {
        const result = await documentClient().send(
          new BatchWriteCommand({ RequestItems: { [table]: pending } }),
        );
        const unprocessed = result.UnprocessedItems?.[table];
        return unprocessed && unprocessed.length > 0 ? unprocessed : undefined;
      },
      options,
    ),
  );
}
