import type { SuspensionStore } from '#lib/domain/governance/suspension';
import {
  decodeNotification,
  decodeScheduledNotification,
  notificationAttributes,
} from '#lib/store/codecs/notifications';
import { conditionHeld, ifConditionHolds } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { updateItem } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { compare, exists } from '#lib/store/dynamo/update-expression';
import { updateHold } from '#lib/store/governance/hold-writes';
import { readNotificationItems, withOwnerStanding } from '#lib/store/notifications/scheduled-notifications';

const { failedRuns, version } = notificationAttributes;

/** The count of failed runs beside the hold: each a single UpdateItem of the notification, only if it exists. */
export const suspensionStore: SuspensionStore = {
  async countFailedRun(ref) {
    const item = await ifConditionHolds(() =>
      updateItem(
        keys.notification(ref.deploymentId, ref.id),
        { add: { [failedRuns]: 1 }, condition: [exists(tableKeySchema.partitionKey)] },
        'ALL_NEW',
      ),
    );
    if (!item) return undefined;
    const notification = decodeNotification(item);
    return {
      count: Number(item[failedRuns]),
      hold: notification.hold,
      dashboardId: notification.dashboardId,
      version: typeof item[version] === 'number' ? item[version] : 0,
    };
  },

  async clearFailedRuns(ref) {
    await conditionHeld(() =>
      updateItem(keys.notification(ref.deploymentId, ref.id), {
        set: { [failedRuns]: 0 },
        condition: [exists(tableKeySchema.partitionKey), compare(failedRuns, '>', 0)],
      }),
    );
  },

  writeHold: updateHold,

  async findScheduled(ref) {
    const { item, entry } = await readNotificationItems(ref.deploymentId, ref.id);
    return item && withOwnerStanding(decodeScheduledNotification(item, entry));
  },
};
