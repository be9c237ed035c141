import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Notification, type NotificationRepository, nextRunOf } from '#lib/domain/notification';
import { documentClient, tableName } from '#lib/store/client';
import { getItem, type Item } from '#lib/store/items';
import { DUE_INDEX, dueIndexKeys, keys } from '#lib/store/keys';

/** The fields of a notification, each an attribute of its item besides its key and its `version`. */
const notificationFields = [
  'id',
  'deploymentId',
  'dashboardId',
  'scheduleType',
  'minute',
  'hour',
  'dayOfWeek',
  'dayOfMonth',
  'customCron',
  'timezone',
  'isEnabled',
  'notificationEnabled',
  'notificationFormat',
  'filters',
  'timeGrains',
] as const satisfies readonly (keyof Notification)[];

/**
 * The due-index attributes of a notification as of `now`: its next firing instant while it is
 * enabled, none otherwise. Every writer of a notification stores what this returns.
 */
export function dueIndexAttributes(
  notification: Notification,
  now: number,
): { gsi3pk: string; gsi3sk: string } | undefined {
  const next = nextRunOf(notification, now);
  return next === undefined
    ? undefined
    : dueIndexKeys.notification(notification.deploymentId, notification.id, next);
}

/**
 * Filters and time grains hold free-form JSON (a filter's value can be any JSON), kept as JSON text
 * (`filtersJson`, `timeGrainsJson`): every number and key comes back exactly as given, which
 * DynamoDB's own numbers (38 digits, 1e-130..1e126) and maps (32 levels, no empty keys) would not do.
 */
const jsonFields = new Set<string>(['filters', 'timeGrains']);
const attributeOf = (field: string) => (jsonFields.has(field) ? `${field}Json` : field);

/** The attribute values of a notification's fields; an absent or null field has none. */
function attributesOf(notification: Notification): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const field of notificationFields) {
    const value = notification[field];
    if (value === undefined || value === null) continue;
    attributes[attributeOf(field)] = jsonFields.has(field) ? JSON.stringify(value) : value;
  }
  return attributes;
}

/** The due entry follows from the schedule as of `createdAt`, when the item is first written. */
export function notificationToItem(
  notification: Notification,
  version = 0,
  createdAt = new Date().toISOString(),
): Item {
  return {
    ...keys.notification(notification.deploymentId, notification.id),
    entity: 'NOTIFICATION',
    ...attributesOf(notification),
    ...dueIndexAttributes(notification, Date.parse(createdAt)),
    version,
  };
}

export function notificationFromItem(item: Item): Notification {
  const notification: Record<string, unknown> = {};
  for (const field of notificationFields) {
    const value = item[attributeOf(field)];
    // Items written before the JSON text attributes hold the list itself, under the field's name.
    const legacy = jsonFields.has(field) ? item[field] : undefined;
    if (value !== undefined)
      notification[field] = jsonFields.has(field) ? JSON.parse(value as string) : value;
    else if (legacy !== undefined) notification[field] = legacy;
  }
  notification.filters ??= null;
  notification.timeGrains ??= null;
  return notification as unknown as Notification;
}

export const notificationRepository: NotificationRepository = {
  async find(deploymentId, id) {
    const item = await getItem(keys.notification(deploymentId, id));
    if (!item) return undefined;
    return { notification: notificationFromItem(item), version: (item.version as number | undefined) ?? 0 };
  },

  async replace(next, expectedVersion, scheduleChanged) {
    // SET what has a value and REMOVE what does not; attributes outside `notificationFields` stay as they are.
    const names: Record<string, string> = { '#version': 'version' };
    const values: Record<string, unknown> = { ':expected': expectedVersion, ':next': expectedVersion + 1 };
    const sets = ['#version = :next'];
    const removes: string[] = [];
    const attributes = attributesOf(next);
    notificationFields.forEach((field, i) => {
      const name = attributeOf(field);
      names[`#f${i}`] = name;
      if (attributes[name] === undefined) removes.push(`#f${i}`);
      else {
        values[`:f${i}`] = attributes[name];
        sets.push(`#f${i} = :f${i}`);
      }
      if (name !== field) {
        names[`#legacy${i}`] = field;
        removes.push(`#legacy${i}`);
      }
    });
    if (scheduleChanged) {
      // The new schedule counts from its next instant; a disabled notification leaves the index.
      names['#duePk'] = DUE_INDEX.partitionKey;
      names['#dueSk'] = DUE_INDEX.sortKey;
      const due = dueIndexAttributes(next, Date.now());
      if (due) {
        values[':duePk'] = due.gsi3pk;
        values[':dueSk'] = due.gsi3sk;
        sets.push('#duePk = :duePk', '#dueSk = :dueSk');
      } else removes.push('#duePk', '#dueSk');
    }
    try {
      await documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.notification(next.deploymentId, next.id),
          UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk) AND #version = :expected',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },
};
