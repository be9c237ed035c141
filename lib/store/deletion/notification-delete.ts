import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import type { NotificationDeletion } from '#lib/domain/notifications/notification-lifecycle';
import { encodePurge } from '#lib/store/codecs/purges';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Key } from '#lib/store/dynamo/keys';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';

/**
 * The delete: one transaction whatever the notification holds. The purge (lib/domain/deletion/purge.ts,
 * lib/store/deletion/purge-store.ts) empties the partition afterwards.
 */

/**
 * The items a delete removes at once, in its transaction: those that make the notification exist
 * (every route's 404), listed (its gsi1/gsi2 entries) and fire (its due-index entry). An item of the
 * partition that does any of these belongs here, so that it goes in the same write.
 */
const removedAtOnce = (ref: NotificationRef): Key[] => [
  keys.notification(ref.deploymentId, ref.id),
  // Its schedule entry carries its due-index entry.
  keys.scheduleEntry(ref.deploymentId, ref.id),
];

/**
 * Removes the notification and leaves its tombstone, in one transaction: a constant amount of work
 * whatever the partition holds. False when there was no notification (a repeat, an unknown id).
 */
async function deleteNotification(deploymentId: number, id: number, now = Date.now()): Promise<boolean> {
  const table = tableName();
  const ref = { deploymentId, id };
  const [first, ...rest] = removedAtOnce(ref);
  const transaction = new TransactWriteCommand({
    TransactItems: [
      // Only an existing notification: a repeated delete is 404 and leaves no second tombstone.
      { Delete: { TableName: table, Key: first, ConditionExpression: 'attribute_exists(pk)' } },
      ...rest.map((key) => ({ Delete: { TableName: table, Key: key } })),
      {
        Put: {
          TableName: table,
          Item: encodePurge({ ...ref, deletedAt: now, sweepAfter: now + PURGE_GRACE_MS }),
        },
      },
    ],
  });
  return transact(() => documentClient().send(transaction), {
    written: true,
    cancelled: ({ failedAt }) => (failedAt(0) ? false : undefined),
  });
}

/** The delete's adapter. */
export const notificationDeletion: NotificationDeletion = { delete: deleteNotification };
