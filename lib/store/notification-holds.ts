import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { HoldStore } from '#lib/domain/governance-writes';
import { documentClient, tableName } from '#lib/store/client';
import {
  decodeNotification,
  decodeScheduledNotification,
  scheduleMarksOf,
} from '#lib/store/codecs/notifications';
import { ifConditionHolds } from '#lib/store/conditional';
import * as keys from '#lib/store/item-keys';
import { scheduleChangeMark } from '#lib/store/schedule-change-mark';
import {
  readNotificationItems,
  storeScheduleEntry,
  withOwnerStanding,
} from '#lib/store/scheduled-notifications';

/** The attribute counting a notification's consecutive failed scheduled runs (lib/store/run-status.ts keeps it). */
export const FAILED_RUNS_ATTRIBUTE = 'failedRunStreak';

/**
 * Pause and resume in storage: the notification read with its version, and one conditional UpdateItem
 * of its `hold` map that is also a schedule change (lib/store/schedule-change-mark.ts).
 */
export const holdStore: HoldStore = {
  async findForHold(target) {
    const { item, entry } = await readNotificationItems(target.deploymentId, target.id);
    if (!item) return undefined;
    const scheduled = await withOwnerStanding(decodeScheduledNotification(item, entry));
    return { scheduled, version: typeof item.version === 'number' ? item.version : 0 };
  },

  async writeHold(target, hold, version, clearFailedRuns) {
    const mark = scheduleChangeMark(target);
    const written = await ifConditionHolds(() =>
      documentClient().send(
        new UpdateCommand({
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
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    if (!written?.Attributes) return undefined;
    return {
      notification: decodeNotification(written.Attributes),
      scheduleVersion: scheduleMarksOf(written.Attributes).scheduleVersion,
    };
  },

  storeSchedule: storeScheduleEntry,
};
