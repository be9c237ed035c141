import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { embedOutput, type RecipientOutput, userOutput } from '#lib/domain/recipients/recipients';
import type { StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import type { UnsubscribeStore } from '#lib/domain/unsubscribe/unsubscribe';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { ConflictError } from '#lib/errors';
import { auditEventPut } from '#lib/store/audit/audit-events';
import {
  decodeRecipient,
  recipientKey,
  sameSubscriptionCondition,
  subscriptionNonceOf,
} from '#lib/store/codecs/recipients';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { eventPuts } from '#lib/store/webhooks/outbox';

/** A read of the recipient row: the page of a link reads, and removes nothing. */
export const subscriptionReader: Pick<UnsubscribeStore, 'isReplaced'> = {
  async isReplaced(target) {
    const item = await getItem(recipientKey(target, target.recipient));
    return item !== undefined && subscriptionNonceOf(item) !== target.subscriptionNonce;
  },
};

/** Tries before an unsubscribe whose row keeps changing under it answers 409. */
const MAX_ATTEMPTS = 3;

/** The removed recipient as the audit event lists it: a console user's name and address read by key. */
async function outputOf(recipient: StoredRecipient): Promise<RecipientOutput> {
  if (recipient.type === 'EMBED_USER') return embedOutput(recipient);
  const user = await getItem(keys.user(recipient.userId));
  // A user deleted since keeps their id in the trail.
  return user
    ? userOutput(decodeConsoleUser(user))
    : { type: 'USER', userId: recipient.userId, email: '', username: '' };
}

/**
 * An unsubscribe reads the recipient row the token names (its output item goes into the audit event),
 * then deletes it in one transaction with the event, on condition that the row is still there and is
 * the token's subscription: no new subscription can slip in between, and the event (and the webhook
 * message, when an endpoint wants it) is written exactly when the row goes. A row that is gone answers true and records nothing.
 */
export const unsubscribeStore: Pick<UnsubscribeStore, 'removeSubscription'> = {
  async removeSubscription(target, eventOf, webhookEvent?: WebhookEvent) {
    const key = recipientKey(target, target.recipient);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const row = await getItem(key);
      if (!row) return true;
      if (subscriptionNonceOf(row) !== target.subscriptionNonce) return false;
      const event = eventOf(await outputOf(decodeRecipient(row)));
      const same = sameSubscriptionCondition(target.subscriptionNonce);
      const send = () =>
        documentClient().send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: tableName(),
                  Key: key,
                  ...same,
                  ConditionExpression: `attribute_exists(pk) AND (${same.ConditionExpression})`,
                },
              },
              auditEventPut(event),
              // Its `recipient.unsubscribed` message, when an endpoint wants it.
              ...eventPuts(webhookEvent),
            ],
          }),
        );
      const outcome = await transact<'removed' | 'changed'>(send, {
        written: 'removed',
        // Removed or replaced since the read: read again.
        cancelled: ({ failedAt }) => (failedAt(0) ? 'changed' : undefined),
      });
      if (outcome === 'removed') return true;
    }
    throw new ConflictError('The subscription is being changed; retry the request');
  },
};
