import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import type { Key } from '#lib/store/dynamo/keys';

export type Item = Record<string, unknown>;

/** One strongly consistent read: these are small control items that a caller just may have written. */
export async function getItem(key: Key): Promise<Item | undefined> {
  const { Item: item } = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  return item;
}
