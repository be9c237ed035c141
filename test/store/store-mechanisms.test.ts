import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#lib/fixtures/load-fixture';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { type ListSource, readPage } from '#lib/store/dynamo/paging';
import { allPages, countAll, queryAll, queryPage } from '#lib/store/dynamo/query';

/**
 * The store's shared mechanisms on their own, against the table: the Query pager every whole-range
 * read goes through, and the keyset pager's walk over a range that moves with time. The reading of
 * conditional-write failures needs no table: test/store/conditional.test.ts.
 */

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
