import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '#lib/store/client';
import { DUE_INDEX, DUE_INDEX_SHARDS, dueIndexKeys } from '#lib/store/keys';

/** How many entries of each shard of the due index are due at `now`: one counting Query per shard, in parallel. */
export async function dueCounts(now: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: DUE_INDEX_SHARDS }, async (_, shard) => {
      let count = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documentClient().send(
          new QueryCommand({
            TableName: tableName(),
            IndexName: DUE_INDEX.name,
            KeyConditionExpression: '#pk = :shard AND #sk < :bound',
            ExpressionAttributeNames: { '#pk': DUE_INDEX.partitionKey, '#sk': DUE_INDEX.sortKey },
            ExpressionAttributeValues: {
              ':shard': dueIndexKeys.shard(shard),
              ':bound': dueIndexKeys.dueBound(now),
            },
            Select: 'COUNT',
            ExclusiveStartKey: startKey,
          }),
        );
        count += page.Count ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return count;
    }),
  );
}
