import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { inParallel } from '#lib/concurrency';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import type { PageWindow, StoredPage } from '#lib/domain/paging';
import type {
  RecipientListing,
  RecipientRemoval,
  RemovalTarget,
} from '#lib/domain/recipients/recipient-lists';
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import { ConflictError } from '#lib/errors';
import { dynamoDbLimits } from '#lib/limits';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { decodeRecipient, recipientKey } from '#lib/store/codecs/recipients';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { batchGetAll, batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import { cursorPosition } from '#lib/store/dynamo/cursors';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { indexes, isRecipientSortKey, rowSkOfRecipientSortKey, sortableId } from '#lib/store/dynamo/keys';
import { type ListSource, type Resolved, readPage } from '#lib/store/dynamo/paging';
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

/**
 * Rows deleted together with the removal's audit event and the check that the notification exists:
 * DynamoDB's 100 actions.
 */
const LAST_DELETES = 98;
/** Tries of the last transaction while rows in it go meanwhile (a concurrent removal). */
const MAX_ATTEMPTS = 3;

/** A removed row as the audit event lists it; a console user deleted since keeps their id. */
async function removedOutputs(rows: readonly Item[]): Promise<RecipientOutput[]> {
  const { items } = await recipientOutputs([...rows]);
  return rows.map((row, i) => {
    const output = items[i];
    if (output) return output;
    return { type: 'USER', userId: Number(row.userId), email: '', username: '' };
  });
}

/**
 * Removes the rows that exist, read first (by key for console users, through gsi2 for embed users) so
 * that the audit event names what was removed. Past LAST_DELETES rows, the first go in batches; the
 * last in one transaction with the event, each on condition that the row still exists, and with the
 * check that the notification does (the race guard with a delete: it still exists after every write
 * before). A row gone meanwhile is read again and left out. Removing what is not subscribed writes
 * and records nothing.
 */
async function removeRecipients(
  notification: NotificationRef,
  targets: readonly RemovalTarget[],
  eventOf: (removed: readonly RecipientOutput[]) => NewAuditEvent,
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
  const named = [...userKeys, ...embedKeys];
  // In the order named (a batch answers in any order): the event lists them so.
  const found = new Map<string, Item>((await batchGetAll(named)).map((row) => [`${row.pk}/${row.sk}`, row]));
  const rows = named
    .map((key) => found.get(`${key.pk}/${key.sk}`))
    .filter((row): row is Item => row !== undefined);
  if (rows.length === 0) return true;
  const outputs = await removedOutputs(rows);
  const entries = rows.map((row, i) => ({ row, output: outputs[i] as RecipientOutput }));
  const first = entries.slice(0, -LAST_DELETES);
  if (first.length > 0) {
    await batchWriteAll(first.map(({ row }) => ({ DeleteRequest: { Key: keyOf(row) } })));
  }
  let last = entries.slice(first.length);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const removed = [...first, ...last].map(({ output }) => output);
    const outcome = await deleteLast(notification, last, eventOf(removed));
    if (typeof outcome === 'boolean') return outcome;
    // Rows another request removed meanwhile: what this one removed is the rest.
    last = last.filter((entry) => !outcome.gone.includes(entry));
    if (first.length === 0 && last.length === 0) return true;
  }
  throw new ConflictError('The recipients are being changed by others; retry the request');
}

const keyOf = (row: Item) => ({ pk: String(row.pk), sk: String(row.sk) });

interface RemovedRow {
  row: Item;
  output: RecipientOutput;
}

/** The last rows' deletes, the event and the notification's check: done, gone (false), or rows gone meanwhile. */
async function deleteLast(
  notification: NotificationRef,
  last: readonly RemovedRow[],
  event: NewAuditEvent,
): Promise<boolean | { gone: RemovedRow[] }> {
  const table = tableName();
  const send = () =>
    documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          ...last.map(({ row }) => ({
            Delete: { TableName: table, Key: keyOf(row), ConditionExpression: 'attribute_exists(pk)' },
          })),
          {
            ConditionCheck: {
              TableName: table,
              Key: keys.notification(notification.deploymentId, notification.id),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          auditEventPut(event),
        ],
      }),
    );
  return transact<boolean | { gone: RemovedRow[] }>(send, {
    written: true,
    cancelled: ({ failedAt }) => {
      // Raced by a delete: 404, as a removal that started after it would answer (lib/store/notifications/notification-guard.ts).
      if (failedAt(last.length)) return false;
      const gone = last.filter((_, i) => failedAt(i));
      return gone.length > 0 ? { gone } : undefined;
    },
  });
}

/** The adapters of the recipient list and of removal. */
export const recipientListing: RecipientListing = { listRecipients };
export const recipientRemoval: RecipientRemoval = { removeRecipients };
