import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { HeldKey } from '#lib/domain/idempotency';
import type { Notification } from '#lib/domain/notifications/notification';
import type {
  NotificationCreation,
  NotificationLookup,
} from '#lib/domain/notifications/notification-lifecycle';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import { ConflictError } from '#lib/errors';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { encodeNotification, encodeScheduleEntry } from '#lib/store/codecs/notifications';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import { claimKey, completeKey, keyDoneMark, keyInUse, releaseKey } from '#lib/store/idempotency';
import { notificationIsLive } from '#lib/store/notifications/notification-guard';
import { nextNotificationId } from '#lib/store/notifications/notification-ids';
import { findScheduledNotification } from '#lib/store/notifications/scheduled-notifications';

/** A created id found taken (only a foreign write could do that) is skipped this many times. */
const MAX_ID_ATTEMPTS = 3;

/**
 * The notification and its schedule entry, only if its id is free, and with a key, in the same
 * transaction, the key's record marked done (only if this request still holds it): a crash before
 * leaves nothing, after, all of it. False when the id is taken.
 */
async function insert(
  notification: Notification,
  schedule: ScheduleState & { signature: string },
  held: HeldKey | undefined,
  event: NewAuditEvent,
): Promise<boolean> {
  const table = tableName();
  const puts = [
    {
      Put: {
        TableName: table,
        Item: encodeNotification(notification),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: table,
        Item: encodeScheduleEntry(notification, { ...schedule, scheduleVersion: 0 }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  const send = () =>
    documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          ...puts,
          ...(held ? [{ Update: keyDoneMark(held, { kind: 'notification', notification }) }] : []),
          auditEventPut(event),
        ],
      }),
    );
  return transact(send, {
    written: true,
    cancelled: ({ failedAt }) => {
      if (failedAt(2)) throw keyInUse();
      return failedAt(0) || failedAt(1) ? false : undefined;
    },
  });
}

async function create(
  draft: Omit<Notification, 'id'>,
  schedule: ScheduleState & { signature: string },
  held: HeldKey | undefined,
  record: (notification: Notification) => NewAuditEvent,
): Promise<Notification> {
  for (let attempt = 1; ; attempt++) {
    const notification: Notification = { ...draft, id: await nextNotificationId() };
    if (await insert(notification, schedule, held, record(notification))) return notification;
    // The id was taken by an item written past the counter: draw the next one.
    if (attempt >= MAX_ID_ATTEMPTS) throw new ConflictError('No free notification id was found; retry');
  }
}

import { dashboardIdOf } from '#lib/store/embedding/dashboards';

/*
 * The adapters of the use cases: each operation's function takes only its own, so that its bundle
 * holds no other operation's storage code (and its IAM grant can be exactly what it calls).
 */
export const notificationLookup: NotificationLookup = { find: findScheduledNotification };
export const notificationCreation: NotificationCreation = {
  dashboardIdOf,
  create,
  isLive: notificationIsLive,
  claimKey,
  completeKey,
  releaseKey,
};
