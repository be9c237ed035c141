import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationOwner, NotificationRef } from '#lib/domain/notification';
import type { NotificationDeletion } from '#lib/domain/notification-lifecycle';
import { documentClient, tableName } from '#lib/store/client';
import { decodeNotification } from '#lib/store/codecs/notifications';
import { encodePurge } from '#lib/store/codecs/purges';
import { countKey, linkKey, SELF_SERVICE_COUNT_ATTRIBUTE } from '#lib/store/codecs/self-service';
import { transact } from '#lib/store/conditional';
import * as keys from '#lib/store/item-keys';
import { getItem } from '#lib/store/items';
import type { Key } from '#lib/store/keys';
import { PURGE_GRACE_MS } from '#lib/store/notification-guard';

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
async function deleteNotification(deploymentId: number, id: number, now = Date.now()): Promise<boolean> {
  const table = tableName();
  const ref = { deploymentId, id };
  const [first, ...rest] = removedAtOnce(ref);
  const owner = await embedOwnerOf(keys.notification(deploymentId, id));
  const transaction = new TransactWriteCommand({
    TransactItems: [
      // Only an existing notification (a repeated delete is 404 and leaves no second tombstone), and
      // one still of the owner read: the count given back is the right one.
      {
        Delete: {
          TableName: table,
          Key: first,
          ConditionExpression: owner
            ? 'attribute_exists(pk) AND #owner.embedUserId = :embedUserId'
            : 'attribute_exists(pk) AND (attribute_not_exists(#owner) OR #owner.#type <> :embedUser)',
          ExpressionAttributeNames: { '#owner': 'owner', ...(!owner && { '#type': 'type' }) },
          ExpressionAttributeValues: owner
            ? { ':embedUserId': owner.embedUserId }
            : { ':embedUser': 'EMBED_USER' },
        },
      },
      ...rest.map((key) => ({ Delete: { TableName: table, Key: key } })),
      {
        Put: {
          TableName: table,
          Item: encodePurge({ ...ref, deletedAt: now, sweepAfter: now + PURGE_GRACE_MS }),
        },
      },
      ...(owner ? ownedRemovals(owner, id) : []),
    ],
  });
  return transact(() => documentClient().send(transaction), {
    written: true,
    cancelled: ({ failedAt }) => (failedAt(0) ? false : undefined),
  });
}

/** The embed user a self-service subscription belongs to, read before its delete. */
async function embedOwnerOf(key: Key) {
  const item = await getItem(key);
  const owner = item && decodeNotification(item).owner;
  return owner?.type === 'EMBED_USER' ? owner : undefined;
}

/** A subscription's delete also gives back its owner's count and removes their link to it. */
function ownedRemovals(owner: Extract<NotificationOwner, { type: 'EMBED_USER' }>, id: number) {
  const table = tableName();
  return [
    { Delete: { TableName: table, Key: linkKey(owner, id) } },
    {
      Update: {
        TableName: table,
        Key: countKey(owner),
        UpdateExpression: 'ADD #count :minusOne',
        ExpressionAttributeNames: { '#count': SELF_SERVICE_COUNT_ATTRIBUTE },
        ExpressionAttributeValues: { ':minusOne': -1 },
      },
    },
  ];
}

/** The delete's adapter. */
export const notificationDeletion: NotificationDeletion = { delete: deleteNotification };
