import type { Notification } from '#lib/domain/notifications/notification';
import { scheduleSignature } from '#lib/domain/schedules/schedule';
import { planSchedule } from '#lib/domain/schedules/schedule-planning';
import { encodeNotification, encodeScheduleEntry } from '#lib/store/codecs/notifications';
import type { Item } from '#lib/store/dynamo/items';
import { holdEntryItem } from '#lib/store/governance/hold-entries';

/**
 * The items of a notification written at `writtenAt` (epoch ms): the notification, its schedule
 * entry with the instants after that moment, and its hold entry when it is held. For writers outside the API (fixtures, the bench).
 */
export function notificationItems(notification: Notification, writtenAt = Date.now(), version = 0): Item[] {
  const schedule = planSchedule(notification, writtenAt);
  // Writers outside the API may give a notification made before holds, with none.
  const holdEntry = notification.hold && holdEntryItem(notification, notification.hold);
  return [
    encodeNotification(notification, version, new Date(writtenAt).toISOString()),
    encodeScheduleEntry(notification, {
      ...schedule,
      signature: scheduleSignature(notification),
      scheduleVersion: 0,
    }),
    ...(holdEntry ? [holdEntry] : []),
  ];
}
