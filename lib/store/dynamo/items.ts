import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import type { Key } from '#lib/store/dynamo/keys';
import { type Changes, updateOf } from '#lib/store/dynamo/update-expression';

export type Item = Record<string, unknown>;

/** One strongly consistent read: these are small control items that a caller just may have written. */
export async function getItem(key: Key): Promise<Item | undefined> {
  const { Item: item } = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  return item;
}

/** The UpdateItem of the item at `key` as `changes` say: sent by updateItem, or an action of a transaction. */
export const itemUpdate = (key: Key, changes: Changes) => ({
  TableName: tableName(),
  Key: key,
  ...updateOf(changes),
});

/** Sends that UpdateItem; the item's attributes as `returnValues` asks for them. */
export async function updateItem(
  key: Key,
  changes: Changes,
  returnValues?: 'ALL_NEW' | 'UPDATED_NEW',
): Promise<Item | undefined> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({ ...itemUpdate(key, changes), ReturnValues: returnValues }),
  );
  return Attributes;
}
