import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationRef, ScheduledNotification } from '#lib/domain/notifications/notification';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import {
  decodeNotification,
  decodeScheduledNotification,
  encodeScheduleEntry,
  scheduledNotificationOf,
} from '#lib/store/codecs/notifications';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { type Key, NOTIFICATION_ITEMS_PREFIX } from '#lib/store/dynamo/keys';
import { queryPage } from '#lib/store/dynamo/query';

/**
 * Notifications as reads answer them: each item joined to its schedule entry, which holds the
 * upcoming instants the dispatcher moves (keys.scheduleEntry).
 */

/** A notification's item and its entry, strongly consistent, in one Query of the two items their keys share a prefix with. */
export async function readNotificationItems(
  deploymentId: number,
  id: number,
): Promise<{ item: Item | undefined; entry: Item | undefined }> {
  const { items } = await queryPage({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': keys.notificationPartition(deploymentId, id),
      ':prefix': NOTIFICATION_ITEMS_PREFIX,
    },
    ConsistentRead: true,
  });
  const withKey = (key: Key) => items.find((candidate) => candidate.sk === key.sk);
  return {
    item: withKey(keys.notification(deploymentId, id)),
    entry: withKey(keys.scheduleEntry(deploymentId, id)),
  };
}

/** A notification and its entry, as a read answers them. */
export async function findScheduledNotification(
  deploymentId: number,
  id: number,
): Promise<ScheduledNotification | undefined> {
  const { item, entry } = await readNotificationItems(deploymentId, id);
  return item && decodeScheduledNotification(item, entry);
}

/**
 * A page of notification items joined to their entries: one BatchGetItem per 100 items, eventually
 * consistent like the index query the page came from.
 */
export async function withSchedules(items: readonly Item[]): Promise<ScheduledNotification[]> {
  if (items.length === 0) return [];
  const notifications = items.map(decodeNotification);
  const entries = await batchGetAll(
    notifications.map((notification) => keys.scheduleEntry(notification.deploymentId, notification.id)),
    { eventuallyConsistent: true },
  );
  const byPartition = new Map(entries.map((entry) => [entry.pk, entry]));
  return notifications.map((notification) =>
    scheduledNotificationOf(
      notification,
      byPartition.get(keys.notificationPartition(notification.deploymentId, notification.id)),
    ),
  );
}

/**
 * Stores a schedule state computed from `scheduleVersion`: replaces the entry unless it holds a later
 * version or the same schedule; for the same schedule it only takes the version, keeping the stored
 * instants (one due a moment ago and not fired yet stays due).
 */
export async function storeScheduleEntry(
  target: NotificationRef,
  state: ScheduleState,
  signature: string,
  scheduleVersion: number,
): Promise<void> {
  const names = { '#version': 'scheduleVersion', '#signature': 'signature' };
  const replaced = await conditionHeld(() =>
    documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: encodeScheduleEntry(target, { ...state, signature, scheduleVersion }),
        ConditionExpression: 'attribute_not_exists(pk) OR (#version < :version AND #signature <> :signature)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':version': scheduleVersion, ':signature': signature },
      }),
    ),
  );
  if (replaced) return;
  // A later version is stored when this condition fails too: it stands.
  await conditionHeld(() =>
    documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.scheduleEntry(target.deploymentId, target.id),
        UpdateExpression: 'SET #version = :version',
        ConditionExpression: '#version < :version AND #signature = :signature',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':version': scheduleVersion, ':signature': signature },
      }),
    ),
  );
}
