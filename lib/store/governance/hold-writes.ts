import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { HoldTarget, NotificationHold } from '#lib/domain/governance/governance';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { notificationAttribute, notificationAttributes } from '#lib/store/codecs/notifications';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { itemUpdate } from '#lib/store/dynamo/items';
import { holdEntryItem } from '#lib/store/governance/hold-entries';
import { atVersion, scheduleChangeMark } from '#lib/store/notifications/schedule-change-mark';
import { eventPuts } from '#lib/store/webhooks/outbox';

/**
 * A notification's hold (pause, suspension) and the count of its consecutive scheduled runs that
 * failed to everyone, on its item. Writing the hold is a schedule change (lib/store/notifications/schedule-change-mark.ts):
 * the hold decides which instants its schedule entry keeps. The hold entry (lib/store/governance/hold-entries.ts)
 * files the notification in the status lists, so it moves in the same transaction.
 */

/**
 * One transaction: the conditional UpdateItem of the hold, on condition that the item is still at
 * `version` (with `clearFailedRuns` the count starts again), the hold entry put or deleted as the hold
 * calls for, the Put of its audit event and that of its webhook event if given. The schedule version
 * the write gave (the item's version after it, as the mark sets it); undefined when the item changed
 * or is gone.
 */
export async function updateHold(
  target: HoldTarget,
  hold: NotificationHold,
  version: number,
  clearFailedRuns: boolean,
  audit: NewAuditEvent,
  event?: WebhookEvent,
): Promise<number | undefined> {
  const entry = holdEntryItem(target, hold);
  const written = await transact(
    () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: itemUpdate(keys.notification(target.deploymentId, target.id), {
                set: {
                  [notificationAttribute('hold')]: hold,
                  ...(clearFailedRuns && { [notificationAttributes.failedRuns]: 0 }),
                  ...scheduleChangeMark(target),
                },
                add: { [notificationAttributes.version]: 1 },
                condition: atVersion(version),
              }),
            },
            entry
              ? { Put: { TableName: tableName(), Item: entry } }
              : { Delete: { TableName: tableName(), Key: keys.holdEntry(target.deploymentId, target.id) } },
            auditEventPut(audit),
            // Its `notification.paused`, `.resumed` or `.suspended` message, when an endpoint wants it.
            ...eventPuts(event),
          ],
        }),
      ),
    { written: true, cancelled: (cancellation) => (cancellation.failedAt(0) ? false : undefined) },
  );
  // The condition held at `version`, so the mark set the schedule version to the one after it.
  return written ? version + 1 : undefined;
}
