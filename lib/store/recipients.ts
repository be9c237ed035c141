import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { RecipientRepository } from '#lib/domain/recipients';
import type { Directory, StoredRecipient } from '#lib/domain/recipients-resolution';
import { batchGetAll, batchWriteAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { ensureTimeLeft } from '#lib/store/deadline';
import { createEmbedUsers, embedUserFromItem, reserveEmbedUserIds } from '#lib/store/embed-users';
import type { Item } from '#lib/store/items';
import { type Key, keys, RECIPIENT_PREFIX } from '#lib/store/keys';
import { recipientFromItem, recipientToItem } from '#lib/store/recipient-items';
import { userFromItem } from '#lib/store/users';

/** BatchGet calls in flight at once: 1000 embed users and their tenants take 11 calls, read in two waves. */
const READ_CONCURRENCY = 8;
/** BatchWrite calls in flight at once. */
const WRITE_CONCURRENCY = 4;

/**
 * The notification and all its recipient rows share a partition: one Query (paged past 1 MB) tells
 * whether the notification exists and lists every recipient it has.
 */
async function recipientsOf(
  notification: { deploymentId: number; id: number },
  options: { remainingTimeMs?: () => number },
): Promise<StoredRecipient[] | undefined> {
  const { pk, sk: notificationSk } = keys.notification(notification.deploymentId, notification.id);
  const recipients: StoredRecipient[] = [];
  let exists = false;
  let startKey: Record<string, unknown> | undefined;
  do {
    ensureTimeLeft(options.remainingTimeMs);
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        // Runs and deliveries share the partition; the range reads only the notification and its recipients.
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :notification AND :lastRecipient',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':notification': notificationSk,
          ':lastRecipient': `${RECIPIENT_PREFIX}\uffff`,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.sk === notificationSk) exists = true;
      else if (String(item.sk).startsWith(RECIPIENT_PREFIX)) recipients.push(recipientFromItem(item));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return exists ? recipients : undefined;
}

const keyId = (key: { pk: unknown; sk: unknown }) => `${key.pk}\u0000${key.sk}`;

export const recipientRepository: RecipientRepository = {
  recipientsOf,

  /** Tenants, users, e-mail links and embed users, all in the same BatchGet calls (100 keys each). */
  async lookUp(request, options) {
    const directory: Directory = { tenants: [], users: [], emailLinks: [], embedUsers: [] };
    const wanted = new Map<string, { key: Key; take: (item: Item) => void }>();
    const want = (key: Key, take: (item: Item) => void) => wanted.set(keyId(key), { key, take });
    for (const name of request.tenants ?? [])
      want(keys.embedTenant(name), () => directory.tenants.push(name));
    for (const id of request.userIds ?? []) {
      want(keys.user(id), (item) => directory.users.push(userFromItem(item)));
    }
    for (const email of request.emails ?? []) {
      want(keys.userByEmail(email), (item) =>
        directory.emailLinks.push({ email, userId: item.userId as number }),
      );
    }
    for (const ref of request.embedUsers ?? []) {
      want(keys.embedUser(ref.embedTenantName, ref.normalizedExternalId), (item) =>
        directory.embedUsers.push(embedUserFromItem(item)),
      );
    }
    const found = await batchGetAll(
      [...wanted.values()].map(({ key }) => key),
      { remainingTimeMs: options.remainingTimeMs, concurrency: READ_CONCURRENCY },
    );
    for (const item of found) wanted.get(keyId(item as Key))?.take(item);
    return directory;
  },

  reserveEmbedUserIds,
  createEmbedUsers,

  /** BatchWrite, 25 rows per call, several in flight; a failure lets the calls in flight end and starts no more. */
  async putRecipients(notification, recipients, options) {
    const requests = recipients.map((recipient) => ({
      PutRequest: { Item: recipientToItem(notification, recipient) },
    }));
    await batchWriteAll(requests, {
      remainingTimeMs: options.remainingTimeMs,
      concurrency: WRITE_CONCURRENCY,
    });
  },
};
