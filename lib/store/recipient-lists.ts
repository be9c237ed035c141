import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { RemovalTarget } from '#lib/domain/notification-lifecycle';
import type { PageRequest, StoredPage } from '#lib/domain/paging';
import type { NotificationRef, RecipientOutput } from '#lib/domain/recipients';
import { batchGetAll, batchWriteAll, inParallel } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { decodeRecipient, recipientKey } from '#lib/store/codecs/recipients';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { indexPartitions, keys, parseRecipientSortKey, sortableId } from '#lib/store/keys';
import { notificationIsLive } from '#lib/store/notification-guard';
import { encodeCursor, type IndexList, positionOf, queryIndex } from '#lib/store/paging';

/** Index queries in flight at once while finding embed recipients to remove. */
const LOOKUP_CONCURRENCY = 8;

function recipientsIndexList(notification: NotificationRef): IndexList {
  const value = indexPartitions.recipientsOfNotification(notification.deploymentId, notification.id);
  return {
    id: value,
    index: 'gsi1',
    partitionKey: { name: 'gsi1pk', value },
    sortKeyName: 'gsi1sk',
    isPosition: (position) => parseRecipientSortKey(position) !== undefined,
    tableKeyAt: (position) => ({
      pk: keys.notificationPartition(notification.deploymentId, notification.id),
      sk: parseRecipientSortKey(position)?.rowSk as string,
    }),
  };
}

/**
 * A page of a notification's recipients, newest subscription first: one GetItem (the 404), one
 * Query on gsi1, and one BatchGetItem for the console users' e-mail and username (embed rows carry
 * theirs). A row whose console user no longer exists is left out.
 */
export async function listRecipients(
  notification: NotificationRef,
  page: PageRequest,
): Promise<StoredPage<RecipientOutput> | undefined> {
  const list = recipientsIndexList(notification);
  const after = positionOf(list, page);
  if (!(await notificationIsLive(notification))) return undefined;
  const { items, more } = await queryIndex(list, page.first, after);
  const rows = items.map((item) => ({ row: decodeRecipient(item), position: item.gsi1sk as string }));
  const userIds = [...new Set(rows.flatMap(({ row }) => (row.type === 'USER' ? [row.userId] : [])))];
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
  const found: StoredPage<RecipientOutput> = { items: [], cursors: [], hasNextPage: more };
  for (const { row, position } of rows) {
    const cursor = encodeCursor(list, position);
    if (row.type === 'USER') {
      const user = users.get(row.userId);
      if (!user) continue;
      found.items.push({ type: 'USER', userId: user.id, email: user.email, username: user.username });
    } else {
      found.items.push({
        type: 'EMBED_USER',
        embedTenantName: row.embedTenantName,
        externalId: row.externalId,
        embedUserId: row.embedUserId,
        email: row.email,
      });
    }
    found.cursors.push(cursor);
  }
  return found;
}

/**
 * An embed recipient row is keyed by tenant and externalId; a removal names the embed user's id.
 * The recipient's gsi2 entry for this notification (partition: the embed user id; sort key: the
 * notification id) finds the row with one Query per removed embed recipient.
 */
async function embedRowKey(notification: NotificationRef, target: RemovalTarget & { type: 'EMBED_USER' }) {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk = :sk',
      ExpressionAttributeValues: {
        ':pk': indexPartitions.notificationsOfRecipient(notification.deploymentId, {
          type: 'EMBED_USER',
          embedUserId: target.embedUserId,
        }),
        ':sk': sortableId(notification.id),
      },
    }),
  );
  const row = Items.map(decodeRecipient).find(
    (recipient) => recipient.type === 'EMBED_USER' && recipient.embedTenantName === target.embedTenantName,
  );
  return row ? recipientKey(notification, row) : undefined;
}

/** Deletes are idempotent: a recipient that is not subscribed is a delete of nothing. */
export async function removeRecipients(
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
  // Raced by a delete: 404, as a removal that started after it would answer (lib/store/notification-guard.ts).
  return notificationIsLive(notification);
}
