import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PurgeStore } from '#lib/domain/purge';
import { batchWriteAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { decodePurge } from '#lib/store/codecs/purges';
import { indexPartitions, type Key, keys } from '#lib/store/keys';

/** The purge's storage: tombstones in gsi1's `PURGES` partition, partitions emptied a step at a time. */

/** BatchWrites in flight at once within one partition: its write throughput is the limit. */
const DELETE_CONCURRENCY = 8;

export const purgeStore: PurgeStore = {
  async pending(limit) {
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :purges',
        ExpressionAttributeValues: { ':purges': indexPartitions.purges() },
        Limit: limit,
      }),
    );
    return Items.map(decodePurge);
  },

  async deleteSome(ref, limit) {
    const pk = keys.notificationPartition(ref.deploymentId, ref.id);
    const { sk: notificationSk } = keys.notification(ref.deploymentId, ref.id);
    const found: Key[] = [];
    let startKey: Record<string, unknown> | undefined;
    // Keys only, strongly consistent: a sweep after the grace must see every write that preceded it.
    do {
      const page = await documentClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ProjectionExpression: 'pk, sk',
          ConsistentRead: true,
          Limit: limit,
          ExclusiveStartKey: startKey,
        }),
      );
      // A notification item here was created again under the same id (only a fixture load can): it stays.
      for (const item of page.Items ?? []) if (item.sk !== notificationSk) found.push(item as Key);
      startKey = page.LastEvaluatedKey;
    } while (found.length === 0 && startKey);
    await batchWriteAll(
      found.map((key) => ({ DeleteRequest: { Key: key } })),
      { concurrency: DELETE_CONCURRENCY },
    );
    return found.length;
  },

  async finish(purge) {
    try {
      await documentClient().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.purge(purge.deploymentId, purge.id),
          // A later delete of the same id (a notification loaded again from a fixture) keeps its own tombstone.
          ConditionExpression: 'sweepAfter = :seen',
          ExpressionAttributeValues: { ':seen': purge.sweepAfter },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
};
