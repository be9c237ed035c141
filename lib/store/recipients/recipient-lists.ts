import { inParallel } from '#lib/concurrency';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import type {
  RecipientListing,
  RecipientRemoval,
  RemovalTarget,
} from '#lib/domain/notifications/notification-lifecycle';
import type { PageWindow, StoredPage } from '#lib/domain/paging';
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import { dynamoDbLimits } from '#lib/limits';
import { decodeRecipient, recipientKey } from '#lib/store/codecs/recipients';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { batchGetAll, batchWriteAll } from '#lib/store/dynamo/batch';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { indexes, isRecipientSortKey, rowSkOfRecipientSortKey, sortableId } from '#lib/store/dynamo/keys';
import { cursorPosition, type ListSource, type Resolved, readPage } from '#lib/store/dynamo/paging';
import { queryPage } from '#lib/store/dynamo/query';
import { notificationIsLive } from '#lib/store/notifications/notification-guard';

/** Index queries in flight at once while finding embed recipients to remove. */
const LOOKUP_CONCURRENCY = 8;

function recipientsSource(notification: NotificationRef): ListSource {
  const value = indexKeys.recipientsOfNotification(notification.deploymentId, notification.id);
  return {
    id: value,
    index: indexes.gsi1,
    partition: value,
    newestFirst: true,
    isPosition: isRecipientSortKey,
    tableKeyAt: (position) => ({
      pk: keys.notificationPartition(notification.deploymentId, notification.id),
      sk: rowSkOfRecipientSortKey(position),
    }),
  };
}

/** Rows as output items: a console user's e-mail and username are read from the user (gone: no item). */
async function recipientOutputs(items: Item[]): Promise<Resolved<RecipientOutput>> {
  const rows = items.map(decodeRecipient);
  const userIds = [...new Set(rows.flatMap((row) => (row.type === 'USER' ? [row.userId] : [])))];
  const users = new Map(
    (
      await batchGetAll(
        userIds.map((id) => keys.user(id)),
        { eventuallyConsistent: true },
      )
    ).map((item) => {
      const user = decodeConsoleUser(item);
      return [user.id, user] as const;
    }),
  );
  return {
    items: rows.map((row): RecipientOutput | undefined => {
      if (row.type === 'EMBED_USER') {
        const { embedTenantName, externalId, embedUserId, email } = row;
        return { type: 'EMBED_USER', embedTenantName, externalId, embedUserId, email };
      }
      const user = users.get(row.userId);
      return user && { type: 'USER', userId: user.id, email: user.email, username: user.username };
    }),
    requests: Math.ceil(userIds.length / dynamoDbLimits.batchGetKeys),
  };
}

/**
 * A page of a notification's recipients, newest subscription first: one GetItem (the 404), then
 * Queries on gsi1 and a BatchGetItem for the console users' e-mail and username (embed rows carry
 * theirs). A row whose console user no longer exists is left out.
 */
async function listRecipients(
  notification: NotificationRef,
  window: PageWindow<RecipientOutput>,
): Promise<StoredPage<RecipientOutput> | undefined> {
  const source = recipientsSource(notification);
  // A foreign cursor is refused before the notification is looked up.
  cursorPosition(source, window.after);
  if (!(await notificationIsLive(notification))) return undefined;
  return readPage({ source, resolve: recipientOutputs }, window);
}

/**
 * An embed recipient row is keyed by tenant and externalId; a removal names the embed user's id.
 * The recipient's gsi2 entry for this notification (partition: the embed user id; sort key: the
 * notification id) finds the row with one Query per removed embed recipient.
 */
async function embedRowKey(notification: NotificationRef, target: RemovalTarget & { type: 'EMBED_USER' }) {
  const { items } = await queryPage({
    IndexName: indexes.gsi2.name,
    KeyConditionExpression: '#pk = :pk AND #sk = :sk',
    ExpressionAttributeNames: { '#pk': indexes.gsi2.partitionKey, '#sk': indexes.gsi2.sortKey },
    ExpressionAttributeValues: {
      ':pk': indexKeys.notificationsOfRecipient(notification.deploymentId, {
        type: 'EMBED_USER',
        embedUserId: target.embedUserId,
      }),
      ':sk': sortableId(notification.id),
    },
  });
  const row = items
    .map(decodeRecipient)
    .find(
      (recipient) => recipient.type === 'EMBED_USER' && recipient.embedTenantName === target.embedTenantName,
    );
  return row ? recipientKey(notification, row) : undefined;
}

/** Deletes are idempotent: a recipient that is not subscribed is a delete of nothing. */
async function removeRecipients(
  notification: NotificationRef,
  targets: readonly RemovalTarget[],
): Promise<boolean> {
  if (!(await notificationIsLive(notification))) return false;
  const userKeys = targets.flatMap((target) =>
    target.type === 'USER'
      ? [keys.userRecipient(notification.deploymentId, notification.id, target.userId)]
      : [],
  );
  const embedTargets = targets.filter((target) => target.type === 'EMBED_USER');
  const embedKeys = (
    await inParallel(embedTargets, LOOKUP_CONCURRENCY, (target) => embedRowKey(notification, target))
  ).filter((key) => key !== undefined);
  const removed = [...userKeys, ...embedKeys];
  if (removed.length === 0) return true;
  await batchWriteAll(removed.map((key) => ({ DeleteRequest: { Key: key } })));
  // Raced by a delete: 404, as a removal that started after it would answer (lib/store/notifications/notification-guard.ts).
  return notificationIsLive(notification);
}

/** The adapters of the recipient list and of removal. */
export const recipientListing: RecipientListing = { listRecipients };
export const recipientRemoval: RecipientRemoval = { removeRecipients };
