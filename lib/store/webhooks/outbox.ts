import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { tableName } from '#lib/store/dynamo/client';
import { outboxEvent, webhookDueEntry } from '#lib/store/webhooks/keys';

/**
 * An event in the outbox, as one more Put in the transaction of the change that caused it: the
 * change and its event are written together or not at all, so an event is never lost to a process
 * that dies after the change, nor sent for a change that did not happen. The sender picks it up from
 * the due index (lib/store/webhooks/messages.ts).
 */

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export function eventPut(event: WebhookEvent): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...outboxEvent(event.eventId),
        ...webhookDueEntry(event.createdAt, 'EVENT', event.eventId),
        kind: 'webhookEvent',
        event,
      },
    },
  };
}

/** The Put of `event` when there is one: spread into a transaction's items. */
export const eventPuts = (event: WebhookEvent | undefined): TransactItem[] =>
  event ? [eventPut(event)] : [];
