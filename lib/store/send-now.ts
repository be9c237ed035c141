import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ManualRunClaim, SendNowStore } from '#lib/domain/dispatch';
import { documentClient, tableName } from '#lib/store/client';
import { decodeSendNowMarker, encodeSendNowMarker } from '#lib/store/codecs/dispatch';
import { STORED_DISPATCHING } from '#lib/store/codecs/runs';
import { transact } from '#lib/store/conditional';
import { findDashboard } from '#lib/store/dashboards';
import * as keys from '#lib/store/item-keys';
import { getItem } from '#lib/store/items';
import { findNotification, runClaim, runDeliveryStore } from '#lib/store/run-delivery';

/**
 * Send-now's storage: a run's deliveries as the dispatcher writes them, plus the one write that decides
 * the send-now limit and makes the run. Kept apart so that the dispatcher's bundle (and its grants)
 * carry no send-now transaction, and this one none of the due index.
 */
export const sendNowStore: SendNowStore = {
  ...runDeliveryStore,
  findNotification,
  findDashboard,

  async createManualRun(run, lease, previousNoLaterThan) {
    const ref = { deploymentId: run.deploymentId, id: run.notificationId };
    const marker = await getItem(keys.sendNowMarker(ref.deploymentId, ref.id));
    const previous = marker && decodeSendNowMarker(marker);
    if (previous && previous.at > previousNoLaterThan)
      return { created: false, reason: 'too_soon', previousAt: previous.at };
    const send = () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              // The limit's decision: the marker moves only from the send-now that was read, so of two
              // send-nows at once exactly one writes it.
              Put: {
                TableName: tableName(),
                Item: encodeSendNowMarker(ref, { at: Date.parse(run.createdAt), runId: run.runId }),
                ConditionExpression: previous ? 'runId = :previous' : 'attribute_not_exists(pk)',
                ...(previous && { ExpressionAttributeValues: { ':previous': previous.runId } }),
              },
            },
            { Put: runClaim(run, lease) },
            // No run for a notification deleted since it was read.
            {
              ConditionCheck: {
                TableName: tableName(),
                Key: keys.notification(ref.deploymentId, ref.id),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            // The previous send-now finished recording its deliveries (or has expired since).
            ...(previous
              ? [
                  {
                    ConditionCheck: {
                      TableName: tableName(),
                      Key: keys.run(ref.deploymentId, ref.id, previous.runId),
                      ConditionExpression: 'attribute_not_exists(pk) OR #status <> :dispatching',
                      ExpressionAttributeNames: { '#status': 'status' },
                      ExpressionAttributeValues: { ':dispatching': STORED_DISPATCHING },
                    },
                  },
                ]
              : []),
          ],
        }),
      );
    return transact<ManualRunClaim>(send, {
      written: { created: true },
      cancelled: ({ failedAt }) => {
        const [markerMoved, notificationGone, stillDispatching] = [failedAt(0), failedAt(2), failedAt(3)];
        if (notificationGone) return { created: false, reason: 'gone' };
        if (stillDispatching && !markerMoved) return { created: false, reason: 'dispatching' };
        // Another send-now won the marker (or is writing it now): it is the previous one, made just now.
        return { created: false, reason: 'too_soon', previousAt: Date.parse(run.createdAt) };
      },
    });
  },
};
