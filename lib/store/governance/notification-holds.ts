import type { HoldStore } from '#lib/domain/governance/governance-writes';
import { decodeScheduledNotification } from '#lib/store/codecs/notifications';
import { updateHold } from '#lib/store/governance/hold-writes';
import {
  readNotificationItems,
  storeScheduleEntry,
  withOwnerStanding,
} from '#lib/store/notifications/scheduled-notifications';

/**
 * Pause and resume in storage: the notification read with its version, and one transaction of the
 * conditional UpdateItem of its `hold` map, which is also a schedule change
 * (lib/store/notifications/schedule-change-mark.ts), and of its hold entry.
 */
export const holdStore: HoldStore = {
  async findForHold(target) {
    const { item, entry } = await readNotificationItems(target.deploymentId, target.id);
    if (!item) return undefined;
    const scheduled = await withOwnerStanding(decodeScheduledNotification(item, entry));
    return { scheduled, version: typeof item.version === 'number' ? item.version : 0 };
  },

  async writeHold(notification, hold, version, clearFailedRuns, audit, event) {
    const scheduleVersion = await updateHold(notification, hold, version, clearFailedRuns, audit, event);
    return scheduleVersion === undefined ? undefined : { scheduleVersion };
  },

  storeSchedule: storeScheduleEntry,
};
