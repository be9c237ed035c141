import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { MESSAGE_RETENTION_MS, type WebhookMessage } from '#lib/domain/webhooks/messages';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import type { Item } from '#lib/store/dynamo/items';
import { TIME_TO_LIVE_ATTRIBUTE } from '#lib/store/dynamo/keys';
import { conditionOf, is } from '#lib/store/dynamo/update-expression';
import { webhookDueEntry, webhookMessage } from '#lib/store/webhooks/keys';

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

/** The attributes a message's conditional writes name: its fields' own names. */
export const messageAttributes = {
  status: 'status',
  attempts: 'attempts',
  nextAttemptAt: 'nextAttemptAt',
} as const satisfies Partial<Record<keyof WebhookMessage, (typeof MESSAGE_FIELDS)[number]>>;

export const decodeMessage = (item: Item): WebhookMessage =>
  Object.fromEntries(
    MESSAGE_FIELDS.map((field) => [field, item[field] ?? null]),
  ) as unknown as WebhookMessage;

/** The message's item: itself, its key, its expiry, and its due entry while pending. */
export function messageItem(message: WebhookMessage): Item {
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
export function replaceMessage(before: WebhookMessage, after: WebhookMessage) {
  return conditionHeld(() =>
    documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: messageItem(after),
        ...conditionOf(
          is(messageAttributes.status, before.status),
          is(messageAttributes.attempts, before.attempts),
          is(messageAttributes.nextAttemptAt, before.nextAttemptAt),
        ),
      }),
    ),
  );
}

/** Message ids as the service issues them: `msg_` + the event's id + the endpoint's. */
export const isMessagePosition = (position: string) =>
  /^msg_[0-9a-z]{9}[0-9a-f]{16}_[0-9a-f]{24}$/.test(position);
