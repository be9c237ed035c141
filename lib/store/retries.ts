import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { backoff } from '#lib/concurrency';
import type { RetryStore } from '#lib/domain/retry';
import type { Delivery, JobRecipient } from '#lib/domain/runs';
import { UnavailableError } from '#lib/errors';
import { batchGetAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { decodeRecipient } from '#lib/store/codecs/recipients';
import { decodeDelivery } from '#lib/store/codecs/runs';
import { awaitingOutcomesIndex, indexNames, indexPartitions, keys } from '#lib/store/keys';
import { notificationIsLive } from '#lib/store/notification-guard';
import { currentRun, settleRun } from '#lib/store/run-status';
import { findDashboard, findNotification } from '#lib/store/runs';

/**
 * Retry in storage. A run's failed deliveries are the only items of their gsi1 partition, so a retry
 * reads them and nothing else. A page of them goes back to `queued` in one transaction together with
 * the run's counts (99 deliveries and the run: DynamoDB's 100 actions).
 */

const MAX_TRANSACTION_ATTEMPTS = 16;
const BASE_DELAY_MS = 20;
const MAX_BACKOFF_DOUBLINGS = 6;
const transientReasons = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'TransactionConflict',
]);

async function requeueOnce(
  ref: { deploymentId: number; id: number; runId: string },
  deliveries: readonly Delivery[],
  now: number,
): Promise<{ moved: number } | { changed: Delivery[] } | { runGone: true }> {
  const updatedAt = new Date(now).toISOString();
  const awaiting = awaitingOutcomesIndex.run(ref.deploymentId, ref.id, ref.runId, now);
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          ...deliveries.map((delivery) => ({
            Update: {
              TableName: tableName(),
              Key: keys.delivery(ref.deploymentId, ref.id, ref.runId, delivery.deliveryId),
              UpdateExpression:
                'SET #status = :queued, attempts = :next, #error = :null, updatedAt = :now REMOVE gsi1pk, gsi1sk',
              ConditionExpression: '#status = :failed AND attempts = :attempt',
              ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
              ExpressionAttributeValues: {
                ':queued': 'queued',
                ':failed': 'failed',
                ':attempt': delivery.attempts,
                ':next': delivery.attempts + 1,
                ':null': null,
                ':now': updatedAt,
              },
            },
          })),
          {
            Update: {
              TableName: tableName(),
              Key: keys.run(ref.deploymentId, ref.id, ref.runId),
              // Outcomes are awaited again: the run is dispatched until they are in.
              UpdateExpression:
                'SET #status = :dispatched, completedAt = :null, gsi3pk = :awaitingPk, gsi3sk = :awaitingSk ADD recipients.failed :minus',
              ConditionExpression: 'attribute_exists(pk) AND #status <> :pending AND #status <> :skipped',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':dispatched': 'dispatched',
                ':pending': 'pending',
                ':skipped': 'skipped',
                ':null': null,
                ':minus': -deliveries.length,
                ':awaitingPk': awaiting.gsi3pk,
                ':awaitingSk': awaiting.gsi3sk,
              },
            },
          },
        ],
      }),
    );
    return { moved: deliveries.length };
  } catch (error) {
    const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
    const changed = deliveries.filter((_, i) => reasons?.[i]?.Code === 'ConditionalCheckFailed');
    if (changed.length > 0) return { changed };
    if (reasons?.[deliveries.length]?.Code === 'ConditionalCheckFailed') return { runGone: true };
    const transient =
      reasons?.some((reason) => transientReasons.has(reason.Code ?? '')) ||
      (error as Error).name === 'TransactionConflictException';
    if (!transient) throw error;
    return { changed: [] };
  }
}

export const retryStore: RetryStore = {
  findRun: (ref) => currentRun({ deploymentId: ref.deploymentId, notificationId: ref.id, runId: ref.runId }),
  findNotification,
  findDashboard,

  async failedPage(ref, after, limit) {
    const gsi1pk = indexPartitions.failedDeliveriesOfRun(ref.deploymentId, ref.id, ref.runId);
    const { Items = [], LastEvaluatedKey } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: indexNames.gsi1,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': gsi1pk },
        Limit: limit,
        ...(after !== undefined && {
          ExclusiveStartKey: {
            gsi1pk,
            gsi1sk: after,
            ...keys.delivery(ref.deploymentId, ref.id, ref.runId, after),
          },
        }),
      }),
    );
    const deliveries = Items.map(decodeDelivery).filter((delivery) => delivery.status === 'failed');
    return { deliveries, last: LastEvaluatedKey?.gsi1sk as string | undefined };
  },

  async jobRecipients(ref, deliveries) {
    // An embed user's job carries the properties stored on its recipient row (a removed row: none).
    const embedKeys = deliveries
      .filter((delivery) => delivery.recipient.type === 'EMBED_USER')
      .map((delivery) => ({ pk: keys.notification(ref.deploymentId, ref.id).pk, sk: delivery.recipientKey }));
    const rows = new Map(
      (embedKeys.length > 0 ? await batchGetAll(embedKeys) : []).map((item) => [
        item.sk as string,
        decodeRecipient(item),
      ]),
    );
    return deliveries.map((delivery): JobRecipient => {
      const row = rows.get(delivery.recipientKey);
      return row?.type === 'EMBED_USER' ? { ...delivery.recipient, ...row.properties } : delivery.recipient;
    });
  },

  async requeue(ref, deliveries, now) {
    let pending = [...deliveries];
    for (let attempt = 1; pending.length > 0; attempt++) {
      const result = await requeueOnce(ref, pending, now);
      if ('moved' in result) return result.moved;
      if ('runGone' in result) return 0;
      // Deliveries that changed meanwhile (a late success) are left; the rest are tried again.
      pending = pending.filter((delivery) => !result.changed.includes(delivery));
      if (result.changed.length === 0) {
        if (attempt >= MAX_TRANSACTION_ATTEMPTS) throw new UnavailableError();
        await backoff(Math.min(attempt, MAX_BACKOFF_DOUBLINGS), BASE_DELAY_MS);
      }
    }
    return 0;
  },

  isLive: notificationIsLive,

  async settle(ref, now) {
    const run = await currentRun({
      deploymentId: ref.deploymentId,
      notificationId: ref.id,
      runId: ref.runId,
    });
    return run && settleRun(run, now);
  },
};
