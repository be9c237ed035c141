import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '#lib/errors';
import {
  cancellationOf,
  conditionHeld,
  contendedRetries,
  ifConditionHolds,
  transact,
} from '#lib/store/dynamo/conditional';
import { ensureTimeLeft } from '#lib/store/dynamo/deadline';
import { retryPolicy } from '#lib/store/dynamo/retry';

/**
 * The one reading of conditional-write failures and cancelled transactions every repository relies
 * on, and the store's retry policy and time check: what DynamoDB answers is built here as the SDK
 * builds it, so no table is needed.
 */

afterEach(() => {
  vi.restoreAllMocks();
});

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('a conditional write', () => {
  it('answers undefined (or false) when its condition fails, and the write’s answer otherwise', async () => {
    await expect(ifConditionHolds(() => Promise.reject(conditionFailed()))).resolves.toBeUndefined();
    await expect(conditionHeld(() => Promise.reject(conditionFailed()))).resolves.toBe(false);
    await expect(ifConditionHolds(() => Promise.resolve({ Attributes: { a: 1 } }))).resolves.toEqual({
      Attributes: { a: 1 },
    });
    await expect(conditionHeld(() => Promise.resolve(undefined))).resolves.toBe(true);
  });

  it('throws any other failure as it is', async () => {
    const fault = new Error('network down');
    await expect(ifConditionHolds(() => Promise.reject(fault))).rejects.toBe(fault);
    await expect(conditionHeld(() => Promise.reject(cancelled('ConditionalCheckFailed')))).rejects.toThrow(
      TransactionCanceledException,
    );
  });
});

describe('a cancelled transaction', () => {
  it('names the actions whose condition failed, by their place in the transaction', () => {
    const cancellation = cancellationOf(cancelled('None', 'ConditionalCheckFailed', 'None'));
    expect([0, 1, 2, 3].map((index) => cancellation?.failedAt(index))).toEqual([false, true, false, false]);
    expect(cancellation?.transient).toBe(false);
  });

  it('is transient when throttled or in conflict with another transaction, and only then', () => {
    for (const code of [
      'ThrottlingError',
      'ProvisionedThroughputExceeded',
      'RequestLimitExceeded',
      'TransactionConflict',
    ])
      expect(cancellationOf(cancelled('None', code))?.transient).toBe(true);
    expect(cancellationOf(cancelled('ValidationError'))?.transient).toBe(false);
    expect(cancellationOf(new Error('other'))).toBeUndefined();
  });

  it('is answered by the caller’s mapping, sent again while transient, and 503 past its attempts', async () => {
    const answers = {
      written: 'written',
      cancelled: ({ failedAt }: { failedAt: (index: number) => boolean }) =>
        failedAt(1) ? 'lost' : undefined,
    };
    await expect(
      transact(() => Promise.reject(cancelled('None', 'ConditionalCheckFailed')), answers),
    ).resolves.toBe('lost');
    let sent = 0;
    const conflictTwice = () =>
      ++sent <= 2 ? Promise.reject(cancelled('TransactionConflict')) : Promise.resolve();
    await expect(transact(conflictTwice, answers, { maxAttempts: 3, baseDelayMs: 1 })).resolves.toBe(
      'written',
    );
    expect(sent).toBe(3);
    sent = 0;
    const alwaysConflict = () => {
      sent++;
      return Promise.reject(cancelled('TransactionConflict'));
    };
    await expect(transact(alwaysConflict, answers, { maxAttempts: 3, baseDelayMs: 1 })).rejects.toThrow(
      UnavailableError,
    );
    expect(sent).toBe(3);
    const invalid = cancelled('ValidationError');
    await expect(transact(() => Promise.reject(invalid), answers)).rejects.toBe(invalid);
  });
});

describe('a cancelled transaction, read further', () => {
  it('hands back the item an action found when its condition failed, and none for the others', () => {
    const found = { pk: { S: 'DEPLOYMENT#9' }, version: { N: '3' } };
    const error = new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: found }],
    });
    const cancellation = cancellationOf(error);
    expect(cancellation?.itemAt(1)).toEqual(found);
    expect(cancellation?.itemAt(0)).toBeUndefined();
    expect(cancellation?.itemAt(2)).toBeUndefined();
  });

  it('names no failed action and is not transient when DynamoDB gives no reasons', () => {
    const cancellation = cancellationOf(
      new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {} }),
    );
    expect(cancellation?.failedAt(0)).toBe(false);
    expect(cancellation?.itemAt(0)).toBeUndefined();
    expect(cancellation?.transient).toBe(false);
  });
});

describe('a transaction sent again', () => {
  /** Sends that are always cancelled for a conflict, up to `cap` of them: past it, written. */
  function conflicting(cap: number) {
    const sends = { count: 0 };
    const send = () =>
      ++sends.count > cap ? Promise.resolve() : Promise.reject(cancelled('TransactionConflict'));
    return { sends, send };
  }
  const answers = { written: 'written', cancelled: () => undefined };

  it('is sent the store policy’s attempts by default, then answers 503 with the cancellation as cause', async () => {
    // No jitter: each wait is 0 ms.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { sends, send } = conflicting(retryPolicy.maxAttempts + 1);
    const failure = await transact(send, answers).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnavailableError);
    expect((failure as UnavailableError).cause).toBeInstanceOf(TransactionCanceledException);
    expect(sends.count).toBe(8);
  });

  it('is sent 16 times when contended, with waits that stop growing after 6 doublings', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { sends, send } = conflicting(17);
    await expect(transact(send, answers, contendedRetries)).rejects.toThrow(UnavailableError);
    expect(sends.count).toBe(16);
  });

  it('waits base × 2^(retry − 1) at most, growing no further than its doublings allow', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const waits: number[] = [];
    const setTimeoutOf = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((handler: () => void, ms?: number) => {
      waits.push(ms ?? 0);
      return setTimeoutOf(handler, 0);
    }) as typeof setTimeout);
    const { send } = conflicting(Number.POSITIVE_INFINITY);
    await expect(
      transact(send, answers, { maxAttempts: 5, baseDelayMs: 2, maxDoublings: 2 }),
    ).rejects.toThrow(UnavailableError);
    // Half (the jitter) of 2, 4, 4, 4 ms: no wait after the last attempt.
    expect(waits).toEqual([1, 2, 2, 2]);
    waits.length = 0;
    await expect(
      transact(conflicting(Number.POSITIVE_INFINITY).send, answers, { maxAttempts: 4 }),
    ).rejects.toThrow(UnavailableError);
    // Without a ceiling they keep doubling, from the store's base of 25 ms.
    expect(waits).toEqual([12.5, 25, 50]);
  });

  it('throws a failure that is no cancellation at once, unanswered', async () => {
    const fault = new Error('socket hang up');
    let sends = 0;
    const cancelledAnswers = { written: 'written', cancelled: () => 'answered' };
    await expect(
      transact(() => {
        sends++;
        return Promise.reject(fault);
      }, cancelledAnswers),
    ).rejects.toBe(fault);
    expect(sends).toBe(1);
  });
});

describe('the time a store call needs', () => {
  const left = (ms: number) => ({ remainingMs: () => ms });

  it('is there without a deadline, and while more than a second is left', () => {
    expect(() => ensureTimeLeft()).not.toThrow();
    expect(() => ensureTimeLeft(left(1001))).not.toThrow();
  });

  it('is a 503 once a second or less is left: no call starts that could not finish', () => {
    for (const ms of [1000, 0])
      expect(() => ensureTimeLeft(left(ms))).toThrow(
        expect.objectContaining({
          name: 'UnavailableError',
          code: 'unavailable',
          message: 'The request ran out of time',
        }),
      );
  });
});
