import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Notification, type NotificationRepository, nextRunOf } from '#lib/domain/notification';
import { documentClient, tableName } from '#lib/store/client';
import { getItem, type Item } from '#lib/store/items';
import { DUE_INDEX, dueIndexKeys, indexKeys, keys } from '#lib/store/keys';

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

/**
 * `createdAt` is when the item was first written; the index entries follow from its id and dashboard,
 * and its due entry from its schedule as of that moment.
 */
export function notificationToItem(
  notification: Notification,
  version = 0,
  createdAt = new Date().toISOString(),
): Item {
  return {
    ...keys.notification(notification.deploymentId, notification.id),
    ...indexKeys.notification(notification.deploymentId, notification.id, notification.dashboardId),
    entity: 'NOTIFICATION',
    ...attributesOf(notification),
    ...dueIndexAttributes(notification, Date.parse(createdAt)),
    createdAt,
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

/**
 * An item written before the JSON text attributes keeps its lists under the field's name until a write
 * moves them; the update does not read first, so it moves them once it has seen them in its result,
 * on the condition that no other write moved or replaced them in between.
 */
async function moveLegacyLists(item: Item): Promise<void> {
  const legacy = [...jsonFields].filter(
    (field) => item[field] !== undefined && item[attributeOf(field)] === undefined,
  );
  if (legacy.length === 0) return;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const conditions: string[] = [];
  legacy.forEach((field, i) => {
    names[`#l${i}`] = field;
    names[`#j${i}`] = attributeOf(field);
    values[`:j${i}`] = JSON.stringify(item[field]);
    sets.push(`#j${i} = :j${i}`);
    conditions.push(`attribute_exists(#l${i}) AND attribute_not_exists(#j${i})`);
  });
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
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
    const removes: string[] = [];
    Object.entries(changes.set).forEach(([field, value], i) => {
      const name = attributeOf(field);
      names[`#f${i}`] = name;
      // A cleared list (null) has no attribute, as in attributesOf.
      if (value === null) removes.push(`#f${i}`);
      else {
        values[`:f${i}`] = jsonFields.has(field) ? JSON.stringify(value) : value;
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
      await moveLegacyLists(item as Item);
      return notificationFromItem(item as Item);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return changes.requires.length > 0 ? 'unmet' : undefined;
    }
  },
};
