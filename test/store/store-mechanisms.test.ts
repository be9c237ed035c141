import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '#lib/errors';
import { ensureTable } from '#lib/fixtures/load-fixture';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { cancellationOf, conditionHeld, ifConditionHolds, transact } from '#lib/store/dynamo/conditional';
import { type ListSource, readPage } from '#lib/store/dynamo/paging';
import { allPages, countAll, queryAll, queryPage } from '#lib/store/dynamo/query';

/**
 * The store's shared mechanisms on their own: the Query pager every whole-range read goes through,
 * and the one reading of conditional-write failures every repository relies on.
 */

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

describe('the Query pager', () => {
  const pk = 'PAGER#test';
  const range = { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } };

  beforeAll(async () => {
    await ensureTable();
    for (let i = 0; i < 7; i++) {
      await documentClient().send(new PutCommand({ TableName: tableName(), Item: { pk, sk: `ITEM#${i}` } }));
    }
  });

  it('follows every page to the end of the range, one Query per page', async () => {
    let calls = 0;
    const items = [];
    for await (const page of allPages((start) => {
      calls++;
      return queryPage({ ...range, Limit: 3 }, start);
    })) {
      items.push(...page.items);
    }
    expect(items.map((item) => item.sk)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `ITEM#${i}`));
    // Three pages of 3, 3 and 1: a full last page would need a fourth, empty one.
    expect(calls).toBe(3);
    expect(await queryAll({ ...range, Limit: 2 })).toHaveLength(7);
    expect(await countAll({ ...range, Limit: 2 })).toBe(7);
  });
});

describe('the keyset pager over a range that moves with time', () => {
  const pk = 'RANGE#test';
  /** The list of `RANGE#test` from `ITEM#<from>` on, each way round. */
  const rangeFrom = (from: number, newestFirst: boolean): ListSource => ({
    id: pk,
    partition: pk,
    sortKey: { prefix: 'ITEM#', from: `ITEM#${from}` },
    newestFirst,
    isPosition: (position) => /^\d$/.test(position),
  });
  const window = { first: 2, maxBytes: 1_000_000, bytesOf: () => 1 };
  const read = (source: ListSource, after?: string) =>
    readPage(
      { source, resolve: (rows) => ({ items: rows.map((row) => row.sk), requests: 0 }) },
      {
        ...window,
        ...(after !== undefined && { after }),
      },
    );

  beforeAll(async () => {
    await ensureTable();
    for (let i = 0; i < 7; i++) {
      await documentClient().send(new PutCommand({ TableName: tableName(), Item: { pk, sk: `ITEM#${i}` } }));
    }
  });

  it('goes on from a cursor the range has moved past: nothing follows newest first, the range from its start oldest first', async () => {
    const newest = await read(rangeFrom(2, true));
    expect(newest.items).toEqual(['ITEM#6', 'ITEM#5']);
    const behind = await read(rangeFrom(2, true), newest.cursors[1]);
    expect(behind.items).toEqual(['ITEM#4', 'ITEM#3']);
    // The range now starts past the cursor's item: all that would follow it is older still.
    expect(await read(rangeFrom(5, true), behind.cursors[1])).toEqual({
      items: [],
      cursors: [],
      hasNextPage: false,
    });

    const oldest = await read(rangeFrom(2, false));
    expect(oldest.items).toEqual(['ITEM#2', 'ITEM#3']);
    // Oldest first, the next item still in the range is its first.
    const moved = await read(rangeFrom(5, false), oldest.cursors[0]);
    expect(moved.items).toEqual(['ITEM#5', 'ITEM#6']);
    expect(moved.hasNextPage).toBe(false);
  });
});
