import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { PurgeStore } from '#lib/domain/deletion/purge';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import { decodeKey } from '#lib/store/codecs/keys';
import { decodePurge } from '#lib/store/codecs/purges';
import { batchGetAll, batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { indexes, type Key } from '#lib/store/dynamo/keys';
import { allPages, queryPage } from '#lib/store/dynamo/query';

/** The purge's storage: tombstones in gsi1's `PURGES` partition, partitions emptied a step at a time. */

/** BatchWrites in flight at once within one partition: its write throughput is the limit. */
const DELETE_CONCURRENCY = 8;

/** Of these notifications, those whose deleted namesake's partition is still being emptied. */
export async function notificationsBeingPurged(refs: readonly NotificationRef[]): Promise<NotificationRef[]> {
  const tombstones = await batchGetAll(refs.map((ref) => keys.purge(ref.deploymentId, ref.id)));
  return tombstones.map(decodePurge).map(({ deploymentId, id }) => ({ deploymentId, id }));
}

export const purgeStore: PurgeStore = {
  async pending(limit) {
    const { items } = await queryPage({
      IndexName: indexes.gsi1.name,
      KeyConditionExpression: '#pk = :purges',
      ExpressionAttributeNames: { '#pk': indexes.gsi1.partitionKey },
      ExpressionAttributeValues: { ':purges': indexKeys.purges() },
      Limit: limit,
    });
    return items.map(decodePurge);
  },

  async notificationExists(ref) {
    return (await getItem(keys.notification(ref.deploymentId, ref.id))) !== undefined;
  },

  async deleteSome(ref, limit) {
    const { sk: notificationSk } = keys.notification(ref.deploymentId, ref.id);
    const found: Key[] = [];
    // Keys only, strongly consistent: a sweep after the grace must see every write that preceded it.
    const keysOnly = {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.notificationPartition(ref.deploymentId, ref.id) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
      Limit: limit,
    };
    // A page that holds nothing to delete (only the item below) is read past; one that does is a step.
    for await (const page of allPages((start) => queryPage(keysOnly, start))) {
      // A notification loaded under the id since this step's check (a fixture load racing the delete) stays.
      found.push(...page.items.map(decodeKey).filter((key) => key.sk !== notificationSk));
      if (found.length > 0) break;
    }
    await batchWriteAll(
      found.map((key) => ({ DeleteRequest: { Key: key } })),
      { concurrency: DELETE_CONCURRENCY },
    );
    return found.length;
  },

  async finish(purge) {
    await conditionHeld(() =>
      documentClient().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.purge(purge.deploymentId, purge.id),
          // A later delete of the same id (a notification loaded again from a fixture) keeps its own tombstone.
          ConditionExpression: 'sweepAfter = :seen',
          ExpressionAttributeValues: { ':seen': purge.sweepAfter },
        }),
      ),
    );
  },
};
