import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import type { DueWork, WebhookOutbox } from '#lib/domain/webhooks/sender';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { ifConditionHolds } from '#lib/store/dynamo/conditional';
import type { Item } from '#lib/store/dynamo/items';
import { DUE_INDEX } from '#lib/store/dynamo/keys';
import { belowInIndex, queryPage } from '#lib/store/dynamo/query';
import { webhookAttempts } from '#lib/store/webhooks/attempts';
import {
  outboxEvent,
  WEBHOOKS_DUE_PARTITION,
  webhookDueEntry,
  webhookMessage,
} from '#lib/store/webhooks/keys';
import { decodeMessage, messageItem } from '#lib/store/webhooks/message-items';

/** The outbox as the sender reads it: what is due, an event's fan-out, and each attempt. */

const isEventItem = (item: Item) => item.kind === 'webhookEvent';

/** Where a read of the due index goes on after `work`: its item's key and its due entry. */
function dueStartKey(work: DueWork): Item {
  if (work.kind === 'event')
    return {
      ...outboxEvent(work.event.eventId),
      ...webhookDueEntry(work.event.createdAt, 'EVENT', work.event.eventId),
    };
  const { deploymentId, webhookId, messageId, nextAttemptAt } = work.message;
  return {
    ...webhookMessage(deploymentId, webhookId, messageId),
    ...webhookDueEntry(nextAttemptAt ?? '', 'MESSAGE', messageId),
  };
}

export const webhookOutbox: WebhookOutbox = {
  claim: (message, until) => webhookAttempts.claim(message, until),
  recordAttempt: (claimed, after) => webhookAttempts.recordAttempt(claimed, after),

  async due(now, limit, after) {
    // Every entry due by now sorts below the instant just after it.
    const bound = new Date(now + 1).toISOString();
    const page = await queryPage(
      { ...belowInIndex(DUE_INDEX, WEBHOOKS_DUE_PARTITION, bound), Limit: limit },
      after && dueStartKey(after),
    );
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
};
