import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { NotificationHold } from '#lib/domain/governance/governance';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { scheduleChangeMark } from '#lib/store/notifications/schedule-change-mark';

/**
 * A notification's hold (pause, suspension) and the count of its consecutive scheduled runs that
 * failed to everyone, on its item. Writing the hold is a schedule change (lib/store/notifications/schedule-change-mark.ts):
 * the hold decides which instants its schedule entry keeps.
 */

/** The attribute counting a notification's consecutive scheduled runs that failed to everyone. */
export const FAILED_RUNS_ATTRIBUTE = 'failedRunStreak';

/**
 * One transaction: a conditional UpdateItem of the hold, on condition that the item is still at
 * `version` (with `clearFailedRuns` the count starts again), and the Put of its audit event. The new
 * schedule version; undefined when the item changed or is gone.
 */
export async function updateHold(
  target: NotificationRef,
  hold: NotificationHold,
  version: number,
  clearFailedRuns: boolean,
  event: NewAuditEvent,
): Promise<{ scheduleVersion: number } | undefined> {
  const mark = scheduleChangeMark(target);
  const send = () =>
    documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.notification(target.deploymentId, target.id),
              UpdateExpression: [
                `SET ${['#hold = :hold', ...(clearFailedRuns ? ['#failedRuns = :zero'] : []), ...mark.sets].join(', ')}`,
                'ADD #version :one',
              ].join(' '),
              // An item written before versions has none: it is at version 0.
              ConditionExpression:
                version === 0
                  ? 'attribute_exists(pk) AND (attribute_not_exists(#version) OR #version = :read)'
                  : 'attribute_exists(pk) AND #version = :read',
              ExpressionAttributeNames: {
                '#hold': 'hold',
                '#version': 'version',
                ...(clearFailedRuns && { '#failedRuns': FAILED_RUNS_ATTRIBUTE }),
                ...mark.names,
              },
              ExpressionAttributeValues: { ':hold': hold, ':read': version, ':one': 1, ...mark.values },
            },
          },
          auditEventPut(event),
        ],
      }),
    );
  const outcome = await transact<'written' | 'changed'>(send, {
    written: 'written',
    cancelled: ({ failedAt }) => (failedAt(0) ? 'changed' : undefined),
  });
  // The mark set `scheduleVersion` to the version after this write.
  return outcome === 'written' ? { scheduleVersion: version + 1 } : undefined;
}
