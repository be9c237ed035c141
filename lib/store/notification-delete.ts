import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationRef } from '#lib/domain/notification';
import type { NotificationDeletion } from '#lib/domain/notification-lifecycle';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { documentClient, tableName } from '#lib/store/client';
import { encodePurge } from '#lib/store/codecs/purges';
import { transact } from '#lib/store/conditional';
import * as keys from '#lib/store/item-keys';
import type { Key } from '#lib/store/keys';
import { PURGE_GRACE_MS } from '#lib/store/notification-guard';
import { eventPuts } from '#lib/store/webhooks/outbox';

/**
 * The delete: one transaction whatever the notification holds. The purge (lib/domain/purge.ts,
 * lib/store/purge-store.ts) empties the partition afterwards.
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
async function deleteNotification(
  deploymentId: number,
  id: number,
  event?: WebhookEvent,
  now = Date.now(),
): Promise<boolean> {
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
      // Its `notification.deleted` message, when an endpoint wants it: recorded with the delete or not at all.
      ...eventPuts(event),
    ],
  });
  return transact(() => documentClient().send(transaction), {
    written: true,
    cancelled: ({ failedAt }) => (failedAt(0) ? false : undefined),
  });
}

/** The delete's adapter. */
export const notificationDeletion: NotificationDeletion = { delete: deleteNotification };
