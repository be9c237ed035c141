import {
  BatchWriteCommand,
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#lib/fixtures/load-fixture';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { journalWrites, type WriteJournal } from '#test/support/write-journal';

/** The property suite's write journal sees every change a write call can make, and none where there is none. */

let journal: WriteJournal;
beforeAll(async () => {
  await ensureTable();
  journal = journalWrites(documentClient());
});
afterAll(() => journal.detach());

const item = (sk: string, value: number) => ({ pk: 'JOURNAL', sk, value });

describe('the write journal', () => {
  it('reports an item put, updated or deleted, with its image before and after', async () => {
    journal.start();
    await documentClient().send(new PutCommand({ TableName: tableName(), Item: item('a', 1) }));
    expect(await journal.changes()).toEqual({
      before: ['none'],
      after: ['{"pk":"JOURNAL","sk":"a","value":1}'],
    });

    journal.start();
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: 'JOURNAL', sk: 'a' },
        UpdateExpression: 'SET #v = :v',
        ExpressionAttributeNames: { '#v': 'value' },
        ExpressionAttributeValues: { ':v': 2 },
      }),
    );
    expect((await journal.changes()).after).toEqual(['{"pk":"JOURNAL","sk":"a","value":2}']);

    journal.start();
    await documentClient().send(
      new DeleteCommand({ TableName: tableName(), Key: { pk: 'JOURNAL', sk: 'a' } }),
    );
    expect((await journal.changes()).after).toEqual(['none']);
  });

  it("sees a batch's and a transaction's items, and nothing for a write undone within the window", async () => {
    journal.start();
    await documentClient().send(
      new BatchWriteCommand({ RequestItems: { [tableName()]: [{ PutRequest: { Item: item('b', 1) } }] } }),
    );
    await documentClient().send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: tableName(), Item: item('c', 1) } }] }),
    );
    expect((await journal.changes()).after.sort()).toEqual([
      '{"pk":"JOURNAL","sk":"b","value":1}',
      '{"pk":"JOURNAL","sk":"c","value":1}',
    ]);

    journal.start();
    await documentClient().send(new PutCommand({ TableName: tableName(), Item: item('d', 1) }));
    await documentClient().send(
      new DeleteCommand({ TableName: tableName(), Key: { pk: 'JOURNAL', sk: 'd' } }),
    );
    await documentClient().send(new PutCommand({ TableName: tableName(), Item: item('b', 1) }));
    expect(await journal.changes()).toEqual({ before: [], after: [] });
  });
});
