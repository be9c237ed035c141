import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '#lib/store/client';
import { DUE_INDEX, DUE_INDEX_SHARDS, dueIndexKeys } from '#lib/store/keys';

/** The pages of one partition of the due index (gsi3) whose entries sort below `bound`, oldest first, paged past 1 MB. */
export async function* dueIndexPages(
  partition: string,
  bound: string,
  select?: 'COUNT',
): AsyncGenerator<QueryCommandOutput> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: DUE_INDEX.name,
        KeyConditionExpression: '#pk = :partition AND #sk < :bound',
        ExpressionAttributeNames: { '#pk': DUE_INDEX.partitionKey, '#sk': DUE_INDEX.sortKey },
        ExpressionAttributeValues: { ':partition': partition, ':bound': bound },
        Select: select,
        ExclusiveStartKey: startKey,
      }),
    );
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** How many entries of one partition of the due index sort below `bound`: a counting Query and its pages. */
export async function countIndexEntries(partition: string, bound: string): Promise<number> {
  let count = 0;
  for await (const page of dueIndexPages(partition, bound, 'COUNT')) count += page.Count ?? 0;
  return count;
}

/** How many entries of each shard of the due index are due at `now`: one counting Query per shard, in parallel. */
export function dueCounts(now: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: DUE_INDEX_SHARDS }, (_, shard) =>
      countIndexEntries(dueIndexKeys.shard(shard), dueIndexKeys.dueBound(now)),
    ),
  );
}
