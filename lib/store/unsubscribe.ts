import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { UnsubscribeStore } from '#lib/domain/unsubscribe';
import { documentClient, tableName } from '#lib/store/client';
import { recipientKey } from '#lib/store/codecs/recipients';

/** An unsubscribe is the delete of one recipient row by its key: deleting a row that is gone deletes nothing. */
export const unsubscribeStore: UnsubscribeStore = {
  async removeSubscription(target) {
    await documentClient().send(
      new DeleteCommand({ TableName: tableName(), Key: recipientKey(target, target.recipient) }),
    );
  },
};
