import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationOwner } from '#lib/domain/notifications/notification';
import type { NotificationUpdate } from '#lib/domain/notifications/notification-writes';
import { auditEventPut } from '#lib/store/audit/audit-events';
import {
  decodeScheduledNotification,
  encodeNotificationField,
  legacyLists,
  notificationAttribute,
  notificationAttributes,
} from '#lib/store/codecs/notifications';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { documentClient } from '#lib/store/dynamo/client';
import { conditionHeld, transact } from '#lib/store/dynamo/conditional';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item, itemUpdate, updateItem } from '#lib/store/dynamo/items';
import { indexes, type Key } from '#lib/store/dynamo/keys';
import { absent, exists } from '#lib/store/dynamo/update-expression';
import { atVersion, scheduleChangeMark } from '#lib/store/notifications/schedule-change-mark';
import {
  findScheduledNotification,
  readNotificationItems,
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
  // A condition that fails: another write moved them first.
  await conditionHeld(() =>
    updateItem(key, {
      set: Object.fromEntries(legacy.map(({ attribute, json }) => [attribute, json])),
      remove: legacy.map(({ field }) => field),
      condition: legacy.flatMap(({ field, attribute }) => [exists(field), absent(attribute)]),
    }),
  );
}

export const notificationUpdate: NotificationUpdate = {
  find: findScheduledNotification,

  /** The item and its entry in one Query; an item still in the old form of its lists is moved first. */
  async findForUpdate(target) {
    const { item, entry } = await readNotificationItems(target.deploymentId, target.id);
    if (!item) return undefined;
    await moveLegacyLists(keys.notification(target.deploymentId, target.id), item);
    const scheduled = await withOwnerStanding(decodeScheduledNotification(item, entry));
    return { scheduled, version: typeof item.version === 'number' ? item.version : 0 };
  },

  /**
   * One transaction: an UpdateItem that SETs the changed fields and ADDs 1 to `version`, on condition
   * that the version is still the one read (attributes it does not name stay as they are), and the
   * Put of the audit event. A write of the schedule also sets `scheduleVersion` to the new version
   * and marks the item in the due index as of now (unless a mark is pending); the pass that finds the
   * mark stores the state if the writer did not, and takes the mark away.
   */
  async update(target, changes, version, event) {
    const set: Record<string, unknown> = {};
    const remove: string[] = [];
    for (const [field, value] of Object.entries(changes.set)) {
      const name = notificationAttribute(field);
      // A cleared list (null) has no attribute, as in attributesOf.
      if (value === null) remove.push(name);
      else set[name] = encodeNotificationField(field, value);
      if (name !== field) remove.push(field);
    }
    if (changes.set.owner !== undefined) {
      // A transfer moves the notification's entry in its owners' lists in the same write.
      const owner = changes.set.owner as NotificationOwner | null;
      const entry = indexKeys.ownedNotification(target.deploymentId, target.id, owner);
      for (const name of [indexes.gsi4.partitionKey, indexes.gsi4.sortKey]) {
        const value = entry[name as keyof typeof entry];
        if (value === undefined) remove.push(name);
        else set[name] = value;
      }
    }
    if (changes.schedule) Object.assign(set, scheduleChangeMark(target));
    const send = () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: itemUpdate(keys.notification(target.deploymentId, target.id), {
                set,
                remove,
                add: { [notificationAttributes.version]: 1 },
                condition: atVersion(version),
              }),
            },
            auditEventPut(event),
          ],
        }),
      );
    const outcome = await transact<'written' | 'changed'>(send, {
      written: 'written',
      // Changed or gone since it was read: the caller reads again.
      cancelled: ({ failedAt }) => (failedAt(0) ? 'changed' : undefined),
    });
    // The mark set `scheduleVersion` to the version after this write.
    return outcome === 'written' ? { scheduleVersion: version + 1 } : undefined;
  },

  storeSchedule(target, state, signature, scheduleVersion) {
    return storeScheduleEntry(target, state, signature, scheduleVersion);
  },

  async consoleUser(userId) {
    const item = await getItem(keys.user(userId));
    return item && decodeConsoleUser(item);
  },
};
