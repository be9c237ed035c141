import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationOwner } from '#lib/domain/notifications/notification';
import type { NotificationUpdate } from '#lib/domain/notifications/notification-writes';
import {
  decodeNotification,
  decodeScheduledNotification,
  encodeNotificationField,
  legacyLists,
  notificationAttribute,
  scheduleMarksOf,
} from '#lib/store/codecs/notifications';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld, ifConditionHolds } from '#lib/store/dynamo/conditional';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import { indexes, type Key } from '#lib/store/dynamo/keys';
import { scheduleChangeMark } from '#lib/store/notifications/schedule-change-mark';
import {
  findScheduledNotification,
  storeScheduleEntry,
  withOwnerStanding,
} from '#lib/store/notifications/scheduled-notifications';

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
  // A condition that fails: another write moved them first.
  await conditionHeld(() =>
    documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${legacy.map((_, i) => `#l${i}`).join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

export const notificationUpdate: NotificationUpdate = {
  find: findScheduledNotification,

  /**
   * One UpdateItem: SET the supplied fields and ADD 1 to `version`; attributes it does not name (other
   * fields, other features' attributes) stay as they are. Required time fields become conditions.
   * A write of the schedule also sets `scheduleVersion` to the new version and marks the item in the
   * due index as of now (unless a mark is pending); the pass that finds the mark stores the state if
   * the writer did not, and takes the mark away. An update of other fields reads the schedule entry beside its write.
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
    if (changes.set.owner !== undefined) {
      // A transfer moves the notification's entry in its owners' lists in the same write.
      const owner = changes.set.owner as NotificationOwner | null;
      const entry = indexKeys.ownedNotification(target.deploymentId, target.id, owner);
      for (const name of [indexes.gsi4.partitionKey, indexes.gsi4.sortKey]) {
        names[`#${name}`] = name;
        const value = entry[name as keyof typeof entry];
        if (value === undefined) removes.push(`#${name}`);
        else {
          values[`:${name}`] = value;
          sets.push(`#${name} = :${name}`);
        }
      }
    }
    if (changes.schedule) {
      const mark = scheduleChangeMark(target);
      Object.assign(names, mark.names);
      Object.assign(values, mark.values);
      sets.push(...mark.sets);
    }
    const conditions = ['attribute_exists(pk)'];
    changes.requires.forEach((field, i) => {
      names[`#r${i}`] = field;
      values[`:r${i}`] = field === 'customCron' ? 'S' : 'N';
      conditions.push(`attribute_type(#r${i}, :r${i})`);
    });
    const key = keys.notification(target.deploymentId, target.id);
    const [written, entry] = await Promise.all([
      ifConditionHolds(() =>
        documentClient().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: key,
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
        ),
      ),
      changes.schedule ? undefined : getItem(keys.scheduleEntry(target.deploymentId, target.id)),
    ]);
    if (!written) return changes.requires.length > 0 ? 'unmet' : undefined;
    const updated: Item = written.Attributes ?? {};
    await moveLegacyLists(key, updated);
    if (!changes.schedule) return { kind: 'fields', scheduled: decodeScheduledNotification(updated, entry) };
    return {
      kind: 'schedule',
      notification: decodeNotification(updated),
      scheduleVersion: scheduleMarksOf(updated).scheduleVersion,
    };
  },

  storeSchedule(target, state, signature, scheduleVersion) {
    return storeScheduleEntry(target, state, signature, scheduleVersion);
  },

  async consoleUser(userId) {
    const item = await getItem(keys.user(userId));
    return item && decodeConsoleUser(item);
  },

  withOwnerStanding,
};
