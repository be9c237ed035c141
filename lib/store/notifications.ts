import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationRepository } from '#lib/domain/notification';
import { documentClient, tableName } from '#lib/store/client';
import {
  decodeNotification,
  decodeVersionedNotification,
  encodeNotificationField,
  legacyLists,
  notificationAttribute,
} from '#lib/store/codecs/notifications';
import { getItem, type Item } from '#lib/store/items';
import { DUE_INDEX, dueIndexKeys, type Key, keys } from '#lib/store/keys';

/**
 * An item written before the JSON text attributes keeps its lists under the field's name until a write
 * moves them; the update does not read first, so it moves them once it has seen them in its result,
 * on the condition that no other write moved or replaced them in between.
 */
async function moveLegacyLists(key: Key, item: Item): Promise<void> {
  const legacy = legacyLists(item);
  if (legacy.length === 0) return;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const conditions: string[] = [];
  legacy.forEach(({ field, attribute, json }, i) => {
    names[`#l${i}`] = field;
    names[`#j${i}`] = attribute;
    values[`:j${i}`] = json;
    sets.push(`#j${i} = :j${i}`);
    conditions.push(`attribute_exists(#l${i}) AND attribute_not_exists(#j${i})`);
  });
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${legacy.map((_, i) => `#l${i}`).join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    // Another write moved them first.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** The fields whose change moves a notification's firing instants. */
const firingFields = new Set<string>([
  'scheduleType',
  'minute',
  'hour',
  'dayOfWeek',
  'dayOfMonth',
  'customCron',
  'timezone',
  'isEnabled',
]);

export const notificationRepository: NotificationRepository = {
  async find(deploymentId, id) {
    const item = await getItem(keys.notification(deploymentId, id));
    return item ? decodeVersionedNotification(item) : undefined;
  },

  /**
   * One UpdateItem: SET the supplied fields and ADD 1 to `version`; attributes it does not name (other
   * fields, other features' attributes) stay as they are. Required time fields become conditions.
   */
  async update(target, changes) {
    const names: Record<string, string> = { '#version': 'version' };
    const values: Record<string, unknown> = { ':one': 1 };
    const sets: string[] = [];
    const removes: string[] = [];
    Object.entries(changes.set).forEach(([field, value], i) => {
      const name = notificationAttribute(field);
      names[`#f${i}`] = name;
      // A cleared list (null) has no attribute, as in attributesOf.
      if (value === null) removes.push(`#f${i}`);
      else {
        values[`:f${i}`] = encodeNotificationField(field, value);
        sets.push(`#f${i} = :f${i}`);
      }
      if (name !== field) {
        names[`#legacy${i}`] = field;
        removes.push(`#legacy${i}`);
      }
    });
    if (Object.keys(changes.set).some((field) => firingFields.has(field))) {
      // The schedule changed: its due entry comes due now, and the next pass moves it to the new
      // schedule's next instant, firing nothing earlier than this write (docs/scheduling.md).
      // Until then the same change sent again sets the very same entry.
      const due = dueIndexKeys.notification(target.deploymentId, target.id, Date.now());
      names['#duePk'] = DUE_INDEX.partitionKey;
      names['#dueSk'] = DUE_INDEX.sortKey;
      names['#dueChanged'] = DUE_INDEX.changedSortKey;
      values[':duePk'] = due.gsi3pk;
      values[':dueSk'] = due.gsi3sk;
      sets.push(
        '#duePk = :duePk',
        '#dueSk = if_not_exists(#dueChanged, :dueSk)',
        '#dueChanged = if_not_exists(#dueChanged, :dueSk)',
      );
    }
    const conditions = ['attribute_exists(pk)'];
    changes.requires.forEach((field, i) => {
      names[`#r${i}`] = field;
      values[`:r${i}`] = field === 'customCron' ? 'S' : 'N';
      conditions.push(`attribute_type(#r${i}, :r${i})`);
    });
    try {
      const { Attributes: item } = await documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.notification(target.deploymentId, target.id),
          UpdateExpression: [
            sets.length > 0 ? `SET ${sets.join(', ')}` : '',
            removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
            'ADD #version :one',
          ].join(' '),
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      const updated: Item = item ?? {};
      await moveLegacyLists(keys.notification(target.deploymentId, target.id), updated);
      return decodeNotification(updated);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return changes.requires.length > 0 ? 'unmet' : undefined;
    }
  },
};
