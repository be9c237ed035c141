import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { OwnerStanding } from '#lib/domain/governance/governance';
import type {
  Notification,
  NotificationRef,
  ScheduledNotification,
} from '#lib/domain/notifications/notification';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import {
  decodeNotification,
  decodeScheduledNotification,
  encodeScheduleEntry,
  scheduledNotificationOf,
  scheduleEntryAttributes,
} from '#lib/store/codecs/notifications';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item, updateItem } from '#lib/store/dynamo/items';
import { type Key, NOTIFICATION_ITEMS_PREFIX, tableKeySchema } from '#lib/store/dynamo/keys';
import { queryPage } from '#lib/store/dynamo/query';
import { absent, all, compare, conditionOf, either, is } from '#lib/store/dynamo/update-expression';

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

/** The console user who owns a notification, if one does: whose standing its status depends on. */
const ownerUserId = (notification: Notification) =>
  notification.owner?.type === 'USER' ? notification.owner.userId : undefined;

/** A console user is an active owner while their item says so; a deleted one is not. */
const standingOf = (user: Item | undefined): OwnerStanding =>
  user && decodeConsoleUser(user).active ? 'active' : 'inactive';

/** A notification and its entry, as a read answers them, with its owner's standing (one more read when a console user owns it). */
export async function findScheduledNotification(
  deploymentId: number,
  id: number,
): Promise<ScheduledNotification | undefined> {
  const { item, entry } = await readNotificationItems(deploymentId, id);
  return item && withOwnerStanding(decodeScheduledNotification(item, entry));
}

/** A notification read with its owner's standing. */
export async function withOwnerStanding(scheduled: ScheduledNotification): Promise<ScheduledNotification> {
  const userId = ownerUserId(scheduled.notification);
  if (userId === undefined) return scheduled;
  return { ...scheduled, owner: standingOf(await getItem(keys.user(userId))) };
}

/**
 * A page of notification items joined to their entries and their owners (console users): one
 * BatchGetItem per 100 keys, eventually consistent like the index query the page came from. A page's
 * notifications share a few owners, so their users add a few keys at most.
 */
export async function withSchedules(items: readonly Item[]): Promise<ScheduledNotification[]> {
  if (items.length === 0) return [];
  const notifications = items.map(decodeNotification);
  const owners = [...new Set(notifications.flatMap((notification) => ownerUserId(notification) ?? []))];
  const found = await batchGetAll(
    [
      ...notifications.map((notification) => keys.scheduleEntry(notification.deploymentId, notification.id)),
      ...owners.map(keys.user),
    ],
    { eventuallyConsistent: true },
  );
  const byKey = new Map(found.map((item) => [`${item.pk}|${item.sk}`, item]));
  const itemAt = (key: Key) => byKey.get(`${key.pk}|${key.sk}`);
  return notifications.map((notification) => {
    const scheduled = scheduledNotificationOf(
      notification,
      itemAt(keys.scheduleEntry(notification.deploymentId, notification.id)),
    );
    const userId = ownerUserId(notification);
    return userId === undefined ? scheduled : { ...scheduled, owner: standingOf(itemAt(keys.user(userId))) };
  });
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
  const replaced = await conditionHeld(() =>
    documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: encodeScheduleEntry(target, { ...state, signature, scheduleVersion }),
        ...conditionOf(
          either(
            absent(tableKeySchema.partitionKey),
            all(
              compare(scheduleEntryAttributes.scheduleVersion, '<', scheduleVersion),
              compare(scheduleEntryAttributes.signature, '<>', signature),
            ),
          ),
        ),
      }),
    ),
  );
  if (replaced) return;
  // A later version is stored when this condition fails too: it stands.
  await conditionHeld(() =>
    updateItem(keys.scheduleEntry(target.deploymentId, target.id), {
      set: { [scheduleEntryAttributes.scheduleVersion]: scheduleVersion },
      condition: [
        compare(scheduleEntryAttributes.scheduleVersion, '<', scheduleVersion),
        is(scheduleEntryAttributes.signature, signature),
      ],
    }),
  );
}
