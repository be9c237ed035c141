import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { backoff, chunkWithin, inParallel } from '#lib/concurrency';
import type { NewEmbedRecipient, RecipientParent } from '#lib/domain/recipients/recipients';
import { UnavailableError } from '#lib/errors';
import { dynamoDbLimits, itemBytesAtMost } from '#lib/limits';
import { COUNTER_ENTITY, counterAttributes, decodeCounter } from '#lib/store/codecs/counters';
import { encodeEmbedUser } from '#lib/store/codecs/embed-users';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { cancellationOf } from '#lib/store/dynamo/conditional';
import { ensureTimeLeft } from '#lib/store/dynamo/deadline';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { type RetryOptions, retryPolicy } from '#lib/store/dynamo/retry';

/**
 * Embed users: one item per tenant and normalized externalId, created at most once. Creation is
 * conditional (`attribute_not_exists`), so it goes through TransactWriteItems, together with the
 * recipient row that needs the new id (conditional too: the request whose transaction commits is
 * the one that created the recipient): 50 embed users and their 50 rows per transaction.
 *
 * Ids: when the new embed users fit in one transaction (with the counter as its 100th action), the
 * transaction itself advances the counter, on the condition that it still holds the value read, so an
 * id is used only if its embed user is created: a request that loses the race for an embed user takes
 * no id. More embed users than that reserve their ids beforehand with one ADD, so that their
 * transactions can run in parallel; an embed user another request created in between leaves a gap.
 */

export interface TransactionOptions extends RetryOptions {
  /** Transactions in flight at once. */
  concurrency?: number;
}

/** DynamoDB allows 100 actions per transaction; each embed user takes two (itself and its row). */
const EMBED_USERS_PER_TRANSACTION = dynamoDbLimits.transactionItems / 2;
/** With the counter as one more action of the transaction: 49 embed users and their rows. */
const NUMBERED_IN_ONE_TRANSACTION = Math.floor((dynamoDbLimits.transactionItems - 1) / 2);
const DEFAULT_CONCURRENCY = 4;

/** One atomic ADD on the sequence's counter: `count` ids in a row, whatever other requests reserve. */
export async function reserveEmbedUserIds(count: number): Promise<number> {
  ensureTimeLeft();
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.counter('embedUser'),
      UpdateExpression: 'ADD #value :count SET #entity = :entity',
      ExpressionAttributeNames: { '#value': counterAttributes.value, '#entity': counterAttributes.entity },
      ExpressionAttributeValues: { ':count': count, ':entity': COUNTER_ENTITY },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return decodeCounter(Attributes, keys.counter('embedUser')) - count + 1;
}

async function counterValue(): Promise<number> {
  return decodeCounter(await getItem(keys.counter('embedUser')), keys.counter('embedUser'));
}

/** Advances the counter past `count` ids, if it still holds `seen`. */
function counterAction(seen: number, count: number) {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.counter('embedUser'),
      UpdateExpression: 'SET #value = :next, #entity = :entity',
      ConditionExpression: seen === 0 ? 'attribute_not_exists(#value) OR #value = :seen' : '#value = :seen',
      ExpressionAttributeNames: { '#value': counterAttributes.value, '#entity': counterAttributes.entity },
      ExpressionAttributeValues: { ':seen': seen, ':next': seen + count, ':entity': COUNTER_ENTITY },
    },
  };
}

const withId = ({ embedUser, recipient }: NewEmbedRecipient, embedUserId: number): NewEmbedRecipient => ({
  embedUser: { ...embedUser, embedUserId },
  recipient: { ...recipient, embedUserId },
});

function transactItems(notification: RecipientParent, pending: readonly NewEmbedRecipient[]) {
  const table = tableName();
  return pending.flatMap(({ embedUser, recipient }) => [
    {
      Put: {
        TableName: table,
        Item: encodeEmbedUser(embedUser),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: table,
        Item: encodeRecipient(notification, recipient),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
}

/**
 * Writes one transaction's worth. An embed user (or row) that exists by now cancels the whole
 * transaction; the reasons name it, so it is set aside and the rest is sent again at once. With
 * `numbered`, the ids are given here and the counter is the first action: a counter moved by another
 * request is read again and the transaction sent again after a jittered pause. A cancellation for
 * throttling or a conflicting transaction is retried with backoff. Returns the id of each, or
 * undefined where another request created it first.
 */
async function createInOneTransaction(
  notification: RecipientParent,
  batch: readonly NewEmbedRecipient[],
  options: TransactionOptions & { numbered?: boolean },
): Promise<(number | undefined)[]> {
  const { maxAttempts = retryPolicy.maxAttempts, baseDelayMs = retryPolicy.baseDelayMs } = options;
  const ids = new Map<NewEmbedRecipient, number | undefined>(batch.map((item) => [item, undefined]));
  let pending = batch;
  let seen = options.numbered ? await counterValue() : 0;
  let retries = 0;
  while (pending.length > 0) {
    ensureTimeLeft();
    const sent = options.numbered ? pending.map((item, i) => withId(item, seen + 1 + i)) : pending;
    const offset = options.numbered ? 1 : 0;
    try {
      await documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            ...(options.numbered ? [counterAction(seen, pending.length)] : []),
            ...transactItems(notification, sent),
          ],
        }),
      );
      for (const [i, item] of pending.entries()) ids.set(item, sent[i]?.embedUser.embedUserId);
      break;
    } catch (error) {
      const cancellation = cancellationOf(error);
      const failed = (action: number) => cancellation?.failedAt(offset + action) === true;
      // The embed user, or its row, exists: another request wrote them in between.
      const taken = pending.filter((_, i) => failed(2 * i) || failed(2 * i + 1));
      const counterMoved = options.numbered && cancellation?.failedAt(0) === true;
      if (counterMoved) seen = await counterValue();
      if (taken.length > 0) {
        pending = pending.filter((item) => !taken.includes(item));
        continue;
      }
      if (!counterMoved && !cancellation?.transient) throw error;
      retries += 1;
      if (retries >= maxAttempts) throw new UnavailableError();
      await backoff(retries, baseDelayMs);
    }
  }
  return batch.map((item) => ids.get(item));
}

/**
 * Creates every embed user with its recipient row, giving each its id (the `embedUserId` supplied is
 * not used); returns the id of each, or undefined where another request created the embed user first.
 */
export async function createEmbedUsers(
  notification: RecipientParent,
  recipients: readonly NewEmbedRecipient[],
  options: TransactionOptions = {},
): Promise<(number | undefined)[]> {
  const bytes = (created: NewEmbedRecipient) =>
    itemBytesAtMost(encodeEmbedUser(created.embedUser)) +
    itemBytesAtMost(encodeRecipient(notification, created.recipient));
  const total = recipients.reduce((sum, created) => sum + bytes(created), 0);
  if (recipients.length <= NUMBERED_IN_ONE_TRANSACTION && total < dynamoDbLimits.transactionBytes) {
    return createInOneTransaction(notification, recipients, { ...options, numbered: true });
  }
  const first = await reserveEmbedUserIds(recipients.length);
  const numbered = recipients.map((item, i) => withId(item, first + i));
  // Fewer than 50 when their items would pass the transaction's 4 MB.
  const batches = chunkWithin(numbered, EMBED_USERS_PER_TRANSACTION, dynamoDbLimits.transactionBytes, bytes);
  const ids = await inParallel(batches, options.concurrency ?? DEFAULT_CONCURRENCY, (batch) =>
    createInOneTransaction(notification, batch, options),
  );
  return ids.flat();
}
