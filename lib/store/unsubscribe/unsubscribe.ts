import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { UnsubscribeStore } from '#lib/domain/unsubscribe/unsubscribe';
import { recipientKey, sameSubscriptionCondition, subscriptionNonceOf } from '#lib/store/codecs/recipients';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import { getItem } from '#lib/store/dynamo/items';

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
export const unsubscribeStore: Pick<UnsubscribeStore, 'removeSubscription'> = {
  removeSubscription: (target) =>
    conditionHeld(() =>
      documentClient().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: recipientKey(target, target.recipient),
          ...sameSubscriptionCondition(target.subscriptionNonce),
        }),
      ),
    ),
};
