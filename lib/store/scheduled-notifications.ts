import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationTarget, ScheduledNotification } from '#lib/domain/notification';
import type { ScheduleState } from '#lib/domain/schedule';
import { batchGetAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { decodeScheduledNotification, encodeScheduleEntry } from '#lib/store/codecs/notifications';
import type { Item } from '#lib/store/items';
import { keys, NOTIFICATION_ITEMS_PREFIX } from '#lib/store/keys';

/**
 * Notifications as reads answer them: each item joined to its schedule entry, which holds the
 * upcoming instants the dispatcher moves (keys.scheduleEntry).
 */

/** A notification and its entry, strongly consistent, in one Query of the two items their keys share a prefix with. */
export async function findScheduledNotification(
  deploymentId: number,
  id: number,
): Promise<ScheduledNotification | undefined> {
  const { pk } = keys.notification(deploymentId, id);
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': NOTIFICATION_ITEMS_PREFIX },
      ConsistentRead: true,
    }),
  );
  const item = Items.find((candidate) => candidate.sk === keys.notification(deploymentId, id).sk);
  if (!item) return undefined;
  const entry = Items.find((candidate) => candidate.sk === keys.scheduleEntry(deploymentId, id).sk);
  return decodeScheduledNotification(item, entry);
}

/**
 * A page of notification items joined to their entries: one BatchGetItem per 100 items, eventually
 * consistent like the index query the page came from.
 */
export async function withSchedules(items: readonly Item[]): Promise<ScheduledNotification[]> {
  if (items.length === 0) return [];
  const entries = await batchGetAll(
    items.map((item) => keys.scheduleEntry(item.deploymentId as number, item.id as number)),
    { eventuallyConsistent: true },
  );
  const byPartition = new Map(entries.map((entry) => [entry.pk as string, entry]));
  return items.map((item) => decodeScheduledNotification(item, byPartition.get(item.pk as string)));
}

const conditionFailed = (error: unknown) => error instanceof ConditionalCheckFailedException;

/**
 * Stores a schedule state computed from `scheduleVersion`: replaces the entry unless it holds a later
 * version or the same schedule; for the same schedule it only takes the version, keeping the stored
 * instants (one due a moment ago and not fired yet stays due).
 */
export async function storeScheduleEntry(
  target: NotificationTarget,
  state: ScheduleState,
  signature: string,
  scheduleVersion: number,
): Promise<void> {
  const names = { '#version': 'scheduleVersion', '#signature': 'signature' };
  try {
    await documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: encodeScheduleEntry(target, { ...state, signature, scheduleVersion }),
        ConditionExpression: 'attribute_not_exists(pk) OR (#version < :version AND #signature <> :signature)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':version': scheduleVersion, ':signature': signature },
      }),
    );
    return;
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.scheduleEntry(target.deploymentId, target.id),
        UpdateExpression: 'SET #version = :version',
        ConditionExpression: '#version < :version AND #signature = :signature',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':version': scheduleVersion, ':signature': signature },
      }),
    );
  } catch (error) {
    // A later version is stored: it stands.
    if (!conditionFailed(error)) throw error;
  }
}
