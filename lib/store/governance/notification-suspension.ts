import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SuspensionStore } from '#lib/domain/governance/suspension';
import { decodeNotification, decodeScheduledNotification } from '#lib/store/codecs/notifications';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld, ifConditionHolds } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { FAILED_RUNS_ATTRIBUTE, updateHold } from '#lib/store/governance/hold-writes';
import { readNotificationItems, withOwnerStanding } from '#lib/store/notifications/scheduled-notifications';

/** The count of failed runs beside the hold: each a single UpdateItem of the notification, only if it exists. */
export const suspensionStore: SuspensionStore = {
  async countFailedRun(ref) {
    const counted = await ifConditionHolds(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.notification(ref.deploymentId, ref.id),
          UpdateExpression: 'ADD #failedRuns :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#failedRuns': FAILED_RUNS_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    const item = counted?.Attributes;
    if (!item) return undefined;
    const notification = decodeNotification(item);
    return {
      count: Number(item[FAILED_RUNS_ATTRIBUTE]),
      hold: notification.hold,
      dashboardId: notification.dashboardId,
      version: typeof item.version === 'number' ? item.version : 0,
    };
  },

  async clearFailedRuns(ref) {
    await conditionHeld(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.notification(ref.deploymentId, ref.id),
          UpdateExpression: 'SET #failedRuns = :zero',
          ConditionExpression: 'attribute_exists(pk) AND #failedRuns > :zero',
          ExpressionAttributeNames: { '#failedRuns': FAILED_RUNS_ATTRIBUTE },
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      ),
    );
  },

  writeHold: updateHold,

  async findScheduled(ref) {
    const { item, entry } = await readNotificationItems(ref.deploymentId, ref.id);
    return item && withOwnerStanding(decodeScheduledNotification(item, entry));
  },
};
