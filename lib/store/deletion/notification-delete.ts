import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { NotificationDeletion } from '#lib/domain/deletion/delete-notification';
import type { NotificationOwner, NotificationRef } from '#lib/domain/notifications/notification';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { ConflictError } from '#lib/errors';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { notificationAttribute } from '#lib/store/codecs/notifications';
import { encodePurge } from '#lib/store/codecs/purges';
import {
  countKey,
  embedOwnerAttribute,
  linkKey,
  ownerPaths,
  SELF_SERVICE_COUNT_ATTRIBUTE,
} from '#lib/store/codecs/self-service';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { itemUpdate } from '#lib/store/dynamo/items';
import { type Key, tableKeySchema } from '#lib/store/dynamo/keys';
import { absent, compare, conditionOf, either, exists, is } from '#lib/store/dynamo/update-expression';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';
import { eventPuts } from '#lib/store/webhooks/outbox';

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

type EmbedOwner = Extract<NotificationOwner, { type: 'EMBED_USER' }>;

/** What one try found: done, no notification, or an owner other than the one the try assumed. */
type Attempt = boolean | { owner: EmbedOwner | undefined };

/** Tries before a delete whose owner keeps changing under it answers 409. */
const MAX_OWNER_ATTEMPTS = 3;

/**
 * Removes the notification and leaves its tombstone, in one transaction: a constant amount of work
 * whatever the partition holds. False when there was no notification (a repeat, an unknown id).
 * A self-service subscription's transaction also removes its owner's link and gives back their count:
 * the first try assumes the owner the caller read (or, without one, no embed owner), and a refusal
 * returns the item, whose owner the next try names (so every delete is one request unless its owner
 * changed in between).
 */
async function deleteNotification(
  deploymentId: number,
  id: number,
  audit: NewAuditEvent,
  event?: WebhookEvent,
  expected?: NotificationOwner | null,
  now = Date.now(),
): Promise<boolean> {
  let owner = expected?.type === 'EMBED_USER' ? expected : undefined;
  for (let attempt = 1; attempt <= MAX_OWNER_ATTEMPTS; attempt++) {
    const result = await deleteOwnedBy({ deploymentId, id }, owner, now, audit, event);
    if (typeof result === 'boolean') return result;
    owner = result.owner;
  }
  throw new ConflictError('The notification is changing owner; retry the delete');
}

async function deleteOwnedBy(
  ref: NotificationRef,
  owner: EmbedOwner | undefined,
  now: number,
  audit: NewAuditEvent,
  event: WebhookEvent | undefined,
): Promise<Attempt> {
  const table = tableName();
  const [, ...rest] = removedAtOnce(ref);
  const transaction = new TransactWriteCommand({
    TransactItems: [
      // Only an existing notification (a repeated delete is 404 and leaves no second tombstone), and
      // only of the owner assumed, so that the count given back is the right one.
      {
        Delete: {
          TableName: table,
          Key: keys.notification(ref.deploymentId, ref.id),
          ...conditionOf(
            exists(tableKeySchema.partitionKey),
            owner
              ? is(ownerPaths.embedUserId, owner.embedUserId)
              : either(absent(notificationAttribute('owner')), compare(ownerPaths.type, '<>', 'EMBED_USER')),
          ),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      ...rest.map((key) => ({ Delete: { TableName: table, Key: key } })),
      {
        Put: {
          TableName: table,
          Item: encodePurge({ ...ref, deletedAt: now, sweepAfter: now + PURGE_GRACE_MS }),
        },
      },
      ...(owner ? ownedRemovals(owner, ref.id) : []),
      // Outside the partition the purge empties: the trail outlives the notification.
      auditEventPut(audit),
      // Its `notification.deleted` message, when an endpoint wants it: recorded with the delete or not at all.
      ...eventPuts(event),
    ],
  });
  return transact<Attempt>(() => documentClient().send(transaction), {
    written: true,
    cancelled: ({ failedAt, itemAt }) => {
      if (!failedAt(0)) return undefined;
      const found = itemAt(0);
      return found ? { owner: embedOwnerAttribute(found) } : false;
    },
  });
}

/** A subscription's delete also gives back its owner's count and removes their link to it. */
function ownedRemovals(owner: EmbedOwner, id: number) {
  const table = tableName();
  return [
    { Delete: { TableName: table, Key: linkKey(owner, id) } },
    {
      Update: itemUpdate(countKey(owner), { add: { [SELF_SERVICE_COUNT_ATTRIBUTE]: -1 } }),
    },
  ];
}

/** The delete's adapter. */
export const notificationDeletion: NotificationDeletion = { delete: deleteNotification };
