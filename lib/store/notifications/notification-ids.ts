import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { COUNTER_ENTITY, counterAttributes, decodeCounter } from '#lib/store/codecs/counters';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';

/**
 * Notification ids come from one counter. Whoever writes notifications with ids of their own (the
 * fixture loader, the migration) first moves the counter past them, so a created id never lands on
 * a loaded one; the create's conditional put is the backstop should one still be taken.
 */

const SEQUENCE = 'notification';

/** The next id: one atomic ADD. */
export async function nextNotificationId(): Promise<number> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.counter(SEQUENCE),
      UpdateExpression: 'ADD #value :one SET #entity = :entity',
      ExpressionAttributeNames: { '#value': counterAttributes.value, '#entity': counterAttributes.entity },
      ExpressionAttributeValues: { ':one': 1, ':entity': COUNTER_ENTITY },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return decodeCounter(Attributes, keys.counter(SEQUENCE));
}

/** Moves the counter to at least `id` (never back): ids handed out later are all above it. */
export async function reserveNotificationIdsThrough(id: number): Promise<void> {
  await conditionHeld(() =>
    documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.counter(SEQUENCE),
        UpdateExpression: 'SET #value = :id, #entity = :entity',
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :id',
        ExpressionAttributeNames: { '#value': counterAttributes.value, '#entity': counterAttributes.entity },
        ExpressionAttributeValues: { ':id': id, ':entity': COUNTER_ENTITY },
      }),
    ),
  );
}
