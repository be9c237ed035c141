import type { WebhookMessageStore } from '#lib/domain/webhooks/message-lists';
import { ifConditionHolds } from '#lib/store/dynamo/conditional';
import { updateItem } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { readPage } from '#lib/store/dynamo/paging';
import { exists } from '#lib/store/dynamo/update-expression';
import {
  MESSAGE_PREFIX,
  webhookDueEntry,
  webhookMessage,
  webhookMessagesPartition,
} from '#lib/store/webhooks/keys';
import { decodeMessage, isMessagePosition, messageAttributes } from '#lib/store/webhooks/message-items';

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
      updateItem(
        webhookMessage(ref.deploymentId, ref.webhookId, messageId),
        {
          set: {
            [messageAttributes.status]: 'pending',
            [messageAttributes.nextAttemptAt]: nextAttemptAt,
            ...due,
          },
          condition: [exists(tableKeySchema.partitionKey)],
        },
        'ALL_NEW',
      ),
    );
    return answer && decodeMessage(answer);
  },
};
