import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { UnsubscribeStore, UnsubscribeTarget } from '#lib/domain/unsubscribe/unsubscribe';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { recipientKey, sameSubscriptionCondition, subscriptionNonceOf } from '#lib/store/codecs/recipients';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld, transact } from '#lib/store/dynamo/conditional';
import { getItem } from '#lib/store/dynamo/items';
import { eventPut } from '#lib/store/webhooks/outbox';

/** A read of the recipient row: the page of a link reads, and removes nothing. */
export const subscriptionReader: Pick<UnsubscribeStore, 'isReplaced'> = {
  async isReplaced(target) {
    const item = await getItem(recipientKey(target, target.recipient));
    return item !== undefined && subscriptionNonceOf(item) !== target.subscriptionNonce;
  },
};

/**
 * An unsubscribe is the delete of one recipient row by its key, on condition that the row is the
 * token's subscription: the check and the removal are one request, so no new subscription can slip
 * in between them. Deleting a row that is gone deletes nothing.
 */
const removeRow = (target: UnsubscribeTarget) =>
  conditionHeld(() =>
    documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: recipientKey(target, target.recipient),
        ...sameSubscriptionCondition(target.subscriptionNonce),
      }),
    ),
  );

/**
 * With an event to record: the row's removal, on condition that it is there and the token's, and the
 * event, in one transaction. Refused, nothing was removed by this call (a repeat, or another
 * subscription): the plain removal then answers as it always does, and no event is recorded.
 */
async function removeRowWithEvent(target: UnsubscribeTarget, event: WebhookEvent): Promise<boolean> {
  const same = sameSubscriptionCondition(target.subscriptionNonce);
  const removed = await transact(
    () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: tableName(),
                Key: recipientKey(target, target.recipient),
                ...same,
                ConditionExpression: `attribute_exists(pk) AND (${same.ConditionExpression.replace('attribute_not_exists(pk) OR ', '')})`,
              },
            },
            eventPut(event),
          ],
        }),
      ),
    { written: true, cancelled: ({ failedAt }) => (failedAt(0) ? false : undefined) },
  );
  return removed || removeRow(target);
}

export const unsubscribeStore: Pick<UnsubscribeStore, 'removeSubscription'> = {
  removeSubscription: (target, event) => (event ? removeRowWithEvent(target, event) : removeRow(target)),
};
