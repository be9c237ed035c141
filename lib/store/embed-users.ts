import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EmbedUser } from '#lib/domain/entities';
import type { NewEmbedRecipient, NotificationRef, StorageOptions } from '#lib/domain/recipients';
import { normalizeExternalId } from '#lib/domain/recipients-input';
import type { EmbedUserRef } from '#lib/domain/recipients-resolution';
import { UnavailableError } from '#lib/errors';
import { chunkWithin, inParallel } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { ensureTimeLeft } from '#lib/store/deadline';
import type { Item } from '#lib/store/items';
import { keys } from '#lib/store/keys';
import { dynamoDbLimits, itemBytesAtMost } from '#lib/store/limits';
import { recipientToItem } from '#lib/store/recipient-items';
import { backoff, type RetryOptions, retryPolicy } from '#lib/store/retry';

/**
 * Embed users: one item per tenant and normalized externalId, created at most once. Creation is
 * conditional (`attribute_not_exists`), so it goes through TransactWriteItems, together with the
 * recipient row that needs the new id: 50 embed users and their 50 rows per transaction.
 */

export interface TransactionOptions extends StorageOptions, RetryOptions {
  /** Transactions in flight at once. */
  concurrency?: number;
}

/** DynamoDB allows 100 actions per transaction; each embed user takes two (itself and its row). */
export const EMBED_USERS_PER_TRANSACTION = dynamoDbLimits.transactionItems / 2;
const DEFAULT_CONCURRENCY = 4;

/** Cancellation reasons that say "try again later" rather than "this cannot succeed". */
const transientReasons = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'TransactionConflict',
]);

export function embedUserToItem(user: EmbedUser): Item {
  return {
    ...keys.embedUser(user.embedTenantName, normalizeExternalId(user.externalId)),
    entity: 'EMBED_USER',
    embedUserId: user.embedUserId,
    embedTenantName: user.embedTenantName,
    externalId: user.externalId,
    email: user.email,
  };
}

export function embedUserFromItem(item: Item): EmbedUser {
  return {
    embedUserId: item.embedUserId as number,
    embedTenantName: item.embedTenantName as string,
    externalId: item.externalId as string,
    email: item.email as string,
  };
}

/** One atomic ADD on the sequence's counter: `count` ids in a row, whatever other requests reserve. */
export async function reserveEmbedUserIds(count: number, options: StorageOptions = {}): Promise<number> {
  ensureTimeLeft(options.remainingTimeMs);
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.counter('embedUser'),
      UpdateExpression: 'ADD #value :count SET #entity = :entity',
      ExpressionAttributeNames: { '#value': 'value', '#entity': 'entity' },
      ExpressionAttributeValues: { ':count': count, ':entity': 'COUNTER' },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return (Attributes?.value as number) - count + 1;
}

const refOf = ({ embedUser }: NewEmbedRecipient): EmbedUserRef => ({
  embedTenantName: embedUser.embedTenantName,
  normalizedExternalId: normalizeExternalId(embedUser.externalId),
});

function transactItems(notification: NotificationRef, pending: readonly NewEmbedRecipient[]) {
  const table = tableName();
  return pending.flatMap(({ embedUser, recipient }) => [
    {
      Put: {
        TableName: table,
        Item: embedUserToItem(embedUser),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { TableName: table, Item: recipientToItem(notification, recipient) } },
  ]);
}

/**
 * Writes one transaction's worth. An embed user that exists by now cancels the whole transaction;
 * the reasons name it, so it is set aside (returned) and the rest is sent again at once. A cancellation
 * for throttling or a conflicting transaction is retried with backoff.
 */
async function createInOneTransaction(
  notification: NotificationRef,
  batch: readonly NewEmbedRecipient[],
  options: TransactionOptions,
): Promise<EmbedUserRef[]> {
  const { maxAttempts = retryPolicy.maxAttempts, baseDelayMs = retryPolicy.baseDelayMs } = options;
  const existing: EmbedUserRef[] = [];
  let pending = batch;
  let retries = 0;
  while (pending.length > 0) {
    ensureTimeLeft(options.remainingTimeMs);
    try {
      await documentClient().send(
        new TransactWriteCommand({ TransactItems: transactItems(notification, pending) }),
      );
      return existing;
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
      const taken = reasons
        ? pending.filter((_, i) => reasons[2 * i]?.Code === 'ConditionalCheckFailed')
        : [];
      if (taken.length > 0) {
        existing.push(...taken.map(refOf));
        pending = pending.filter((recipient) => !taken.includes(recipient));
        continue;
      }
      const transient =
        reasons?.some((reason) => transientReasons.has(reason.Code ?? '')) ||
        (error as Error).name === 'TransactionConflictException';
      if (!transient) throw error;
      retries += 1;
      if (retries >= maxAttempts) throw new UnavailableError();
      await backoff(retries, baseDelayMs);
    }
  }
  return existing;
}

/** Creates every embed user with its recipient row; returns the embed users that someone else created first. */
export async function createEmbedUsers(
  notification: NotificationRef,
  recipients: readonly NewEmbedRecipient[],
  options: TransactionOptions = {},
): Promise<EmbedUserRef[]> {
  // Fewer than 50 when their items would pass the transaction's 4 MB.
  const batches = chunkWithin(
    recipients,
    EMBED_USERS_PER_TRANSACTION,
    dynamoDbLimits.transactionBytes,
    (created) =>
      itemBytesAtMost(embedUserToItem(created.embedUser)) +
      itemBytesAtMost(recipientToItem(notification, created.recipient)),
  );
  const existing = await inParallel(batches, options.concurrency ?? DEFAULT_CONCURRENCY, (batch) =>
    createInOneTransaction(notification, batch, options),
  );
  return existing.flat();
}
