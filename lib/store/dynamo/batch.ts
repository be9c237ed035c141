import { BatchGetCommand, BatchWriteCommand, type BatchWriteWriteRequest } from '@aws-sdk/lib-dynamodb';
import { backoff, chunk, chunkWithin, inParallel } from '#lib/concurrency';
import { UnavailableError } from '#lib/errors';
import { dynamoDbLimits, itemBytesAtMost } from '#lib/limits';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { ensureTimeLeft } from '#lib/store/dynamo/deadline';
import type { Item } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';
import { type RetryOptions, retryPolicy } from '#lib/store/dynamo/retry';

/** DynamoDB's own ceilings per call. */
const BATCH_GET_LIMIT = dynamoDbLimits.batchGetKeys;
export const BATCH_WRITE_LIMIT = dynamoDbLimits.batchWriteItems;

const requestBytes = (request: WriteRequest) =>
  'PutRequest' in request
    ? itemBytesAtMost(request.PutRequest.Item)
    : itemBytesAtMost(request.DeleteRequest.Key);

export interface BatchOptions extends RetryOptions {
  /** Calls in flight at once. */
  concurrency?: number;
}

const DEFAULT_CONCURRENCY = 4;

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
    ensureTimeLeft();
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
