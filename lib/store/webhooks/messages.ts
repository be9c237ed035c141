import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookMessageStore } from '#lib/domain/webhooks/message-lists';
import { MESSAGE_RETENTION_MS, type WebhookEvent, type WebhookMessage } from '#lib/domain/webhooks/messages';
import type { DueWork, WebhookOutbox } from '#lib/domain/webhooks/sender';
import { documentClient, tableName } from '#lib/store/client';
import { conditionHeld, ifConditionHolds } from '#lib/store/conditional';
import type { Item } from '#lib/store/items';
import { DUE_INDEX, TIME_TO_LIVE_ATTRIBUTE } from '#lib/store/keys';
import { readPage } from '#lib/store/paging';
import { belowInIndex, queryPage } from '#lib/store/query';
import {
  MESSAGE_PREFIX,
  outboxEvent,
  WEBHOOKS_DUE_PARTITION,
  webhookDueEntry,
  webhookMessage,
  webhookMessagesPartition,
} from '#lib/store/webhooks/keys';

/**
 * Webhook messages in storage: each in its endpoint's partition, in the due index while pending (by
 * its next attempt), expiring 30 days after its event. Every step is a conditional write on what the
 * step read, so two senders never both record an attempt, and a step done twice writes once.
 */

const MESSAGE_FIELDS = [
  'messageId',
  'deploymentId',
  'webhookId',
  'type',
  'body',
  'createdAt',
  'status',
  'attempts',
  'lastStatusCode',
  'lastError',
  'nextAttemptAt',
] as const;

const decodeMessage = (item: Item): WebhookMessage =>
  Object.fromEntries(
    MESSAGE_FIELDS.map((field) => [field, item[field] ?? null]),
  ) as unknown as WebhookMessage;

/** The message's item: itself, its key, its expiry, and its due entry while pending. */
function messageItem(message: WebhookMessage): Item {
  return {
    ...webhookMessage(message.deploymentId, message.webhookId, message.messageId),
    ...message,
    kind: 'webhookMessage',
    [TIME_TO_LIVE_ATTRIBUTE]: Math.floor((Date.parse(message.createdAt) + MESSAGE_RETENTION_MS) / 1000),
    ...(message.status === 'pending' &&
      message.nextAttemptAt !== null &&
      webhookDueEntry(message.nextAttemptAt, 'MESSAGE', message.messageId)),
  };
}

/** Writes `after` over `before`, on condition that the stored message is still `before`. */
function replaceMessage(before: WebhookMessage, after: WebhookMessage) {
  return conditionHeld(() =>
    documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: messageItem(after),
        ConditionExpression: '#status = :status AND attempts = :attempts AND nextAttemptAt = :next',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': before.status,
          ':attempts': before.attempts,
          ':next': before.nextAttemptAt,
        },
      }),
    ),
  );
}

const isEventItem = (item: Item) => item.kind === 'webhookEvent';

export const webhookOutbox: WebhookOutbox = {
  async due(now, limit) {
    // Every entry due by now sorts below the instant just after it.
    const bound = new Date(now + 1).toISOString();
    const page = await queryPage({ ...belowInIndex(DUE_INDEX, WEBHOOKS_DUE_PARTITION, bound), Limit: limit });
    return page.items.map(
      (item): DueWork =>
        isEventItem(item)
          ? { kind: 'event', event: item.event as WebhookEvent }
          : { kind: 'message', message: decodeMessage(item) },
    );
  },

  async fanOut(event, messages) {
    // A message already made (a fan-out cut short, done again) is left as it is.
    await Promise.all(
      messages.map((message) =>
        ifConditionHolds(() =>
          documentClient().send(
            new PutCommand({
              TableName: tableName(),
              Item: messageItem(message),
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          ),
        ),
      ),
    );
    await documentClient().send(
      new DeleteCommand({ TableName: tableName(), Key: outboxEvent(event.eventId) }),
    );
  },

  async claim(message, until) {
    const claimed = { ...message, nextAttemptAt: new Date(until).toISOString() };
    return (await replaceMessage(message, claimed)) ? claimed : undefined;
  },

  async recordAttempt(claimed, after) {
    await replaceMessage(claimed, after);
  },
};

/** Message ids as the service issues them: `msg_` + the event's id + the endpoint's. */
const isMessagePosition = (position: string) => /^msg_[0-9a-z]{9}[0-9a-f]{16}_[0-9a-f]{24}$/.test(position);

/** The list and the retry, apart: each function bundles only its own statement. */
export const webhookMessageListing: Pick<WebhookMessageStore, 'messagesPage'> = {
  messagesPage(ref, window) {
    return readPage(
      {
        source: {
          id: `webhook-messages/${ref.deploymentId}/${ref.webhookId}`,
          partition: webhookMessagesPartition(ref.deploymentId, ref.webhookId),
          sortKey: { prefix: MESSAGE_PREFIX },
          newestFirst: true,
          isPosition: isMessagePosition,
        },
        resolve: (rows) => ({ items: rows.map(decodeMessage), requests: 0 }),
      },
      window,
    );
  },
};

export const webhookMessageRetry: Pick<WebhookMessageStore, 'sendAgain'> = {
  async sendAgain(ref, messageId, now) {
    if (!isMessagePosition(messageId)) return undefined;
    const nextAttemptAt = new Date(now).toISOString();
    const due = webhookDueEntry(nextAttemptAt, 'MESSAGE', messageId);
    const answer = await ifConditionHolds(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: webhookMessage(ref.deploymentId, ref.webhookId, messageId),
          UpdateExpression: 'SET #status = :pending, nextAttemptAt = :next, gsi3pk = :duePk, gsi3sk = :dueSk',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':next': nextAttemptAt,
            ':duePk': due.gsi3pk,
            ':dueSk': due.gsi3sk,
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return answer?.Attributes && decodeMessage(answer.Attributes);
  },
};
