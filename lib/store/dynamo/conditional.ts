import {
  type AttributeValue,
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { backoff } from '#lib/concurrency';
import { UnavailableError } from '#lib/errors';
import { retryPolicy } from '#lib/store/dynamo/retry';

/**
 * Conditional writes, the store's way of deciding a race: a write states what it expects to find, and
 * a condition that does not hold is an answer (another writer came first), never a fault. Every
 * repository reads that answer here, so what counts as "condition failed" and as "send it again" is
 * decided once.
 */

/** The write's answer, or undefined when its condition did not hold; any other failure is thrown. */
export async function ifConditionHolds<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** Whether the conditional write was made: false when its condition did not hold. */
export async function conditionHeld(write: () => Promise<unknown>): Promise<boolean> {
  const written = await ifConditionHolds(async () => {
    await write();
    return true;
  });
  return written === true;
}

/** Cancellation reasons that say "send it again" rather than "this cannot succeed". */
const transientReasons = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'TransactionConflict',
]);

/** A cancelled transaction, as the reasons of its actions tell it. */
export interface Cancellation {
  /** Whether the condition of the action at `index` (in the order sent) failed. */
  failedAt(index: number): boolean;
  /**
   * The item the action at `index` found, in DynamoDB's attribute-value form, when its condition failed
   * and it asked for it (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`); undefined when there was none.
   */
  itemAt(index: number): Record<string, AttributeValue> | undefined;
  /** Whether it may be written if sent again: throttled, or in conflict with another transaction. */
  transient: boolean;
}

/** The cancellation `error` reports, or undefined when it is any other error. */
export function cancellationOf(error: unknown): Cancellation | undefined {
  if (error instanceof TransactionCanceledException) {
    const reasons = error.CancellationReasons ?? [];
    const codes = reasons.map((reason) => reason.Code ?? '');
    return {
      failedAt: (index) => codes[index] === 'ConditionalCheckFailed',
      itemAt: (index) => reasons[index]?.Item,
      transient: codes.some((code) => transientReasons.has(code)),
    };
  }
  // A transaction in conflict with another is cancelled with the reason TransactionConflict, never
  // refused with TransactionConflictException (that answers a single-item write meeting a transaction).
  return undefined;
}

/** How often a transaction is sent again after a transient cancellation, and how long it waits. */
export interface TransactionRetries {
  maxAttempts: number;
  baseDelayMs?: number;
  /** Waits stop growing after this many doublings. */
  maxDoublings?: number;
}

/**
 * For transactions on one much-written item (every outcome report of a run updates the run):
 * conflicts are expected when hundreds arrive together, so more tries than a rare fault gets, with
 * short waits that stop growing, so a write under heavy contention keeps trying within its time.
 */
export const contendedRetries: TransactionRetries = { maxAttempts: 16, baseDelayMs: 20, maxDoublings: 6 };

/**
 * Sends a transaction until it is written (`answers.written`) or cancelled for a reason
 * `answers.cancelled` has an answer to (a failed condition, mostly). A cancellation it has no answer
 * to is sent again after a jittered backoff when it is transient, and thrown when it is not; past
 * `retries.maxAttempts`, 503: nothing was written, and the request is safe to repeat.
 */
export async function transact<T>(
  send: () => Promise<unknown>,
  answers: { written: T; cancelled: (cancellation: Cancellation) => T | undefined },
  retries: TransactionRetries = { maxAttempts: retryPolicy.maxAttempts },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      await send();
      return answers.written;
    } catch (error) {
      const cancellation = cancellationOf(error);
      const answer = cancellation && answers.cancelled(cancellation);
      if (answer !== undefined) return answer;
      if (!cancellation?.transient) throw error;
      if (attempt >= retries.maxAttempts) throw new UnavailableError(undefined, { cause: error });
      await backoff(Math.min(attempt, retries.maxDoublings ?? attempt), retries.baseDelayMs);
    }
  }
}
