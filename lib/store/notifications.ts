import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification, NotificationRepository } from '#lib/domain/notification';
import { documentClient, tableName } from '#lib/store/client';
import { getItem, type Item } from '#lib/store/items';
import { keys } from '#lib/store/keys';

/** The attributes a notification item holds besides its key and its `version`. */
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

export function notificationToItem(notification: Notification, version = 0): Item {
  return {
    ...keys.notification(notification.deploymentId, notification.id),
    entity: 'NOTIFICATION',
    ...notification,
    version,
  };
}

export function notificationFromItem(item: Item): Notification {
  const notification: Record<string, unknown> = {};
  for (const field of notificationFields) if (item[field] !== undefined) notification[field] = item[field];
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

  /**
   * One UpdateItem: SET the supplied fields and ADD 1 to `version`; attributes it does not name (other
   * fields, other features' attributes) stay as they are. Required time fields become conditions.
   */
  async update(target, changes) {
    const names: Record<string, string> = { '#version': 'version' };
    const values: Record<string, unknown> = { ':one': 1 };
    const sets: string[] = [];
    Object.entries(changes.set).forEach(([field, value], i) => {
      names[`#f${i}`] = field;
      values[`:f${i}`] = value;
      sets.push(`#f${i} = :f${i}`);
    });
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
          UpdateExpression: `SET ${sets.join(', ')} ADD #version :one`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return notificationFromItem(item as Item);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return changes.requires.length > 0 ? 'unmet' : undefined;
    }
  },
};
