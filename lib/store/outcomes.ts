import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OutcomeStore, RecordResult } from '#lib/domain/outcomes';
import { type DeliveryRef, isComplete } from '#lib/domain/runs';
import { runEvent } from '#lib/domain/webhooks/run-events';
import { documentClient, tableName } from '#lib/store/client';
import { decodeDeliveryState, decodeRun } from '#lib/store/codecs/runs';
import { contendedRetries, transact } from '#lib/store/conditional';
import * as indexKeys from '#lib/store/index-keys';
import * as keys from '#lib/store/item-keys';
import { settleRun } from '#lib/store/run-status';
import { eventPuts } from '#lib/store/webhooks/outbox';
import { eventRecorder, readWithSubscriptions } from '#lib/store/webhooks/subscriptions';

/**
 * Outcome reports in storage. A report is one transaction: the delivery's update, on condition that it
 * is still in the state the decision was made from; the run's counts, on condition that the run exists;
 * and a check that the notification exists, so that a report for a deleted notification's job (its
 * items wait for the purge) writes nothing and is 404, also when it races the delete. Every report of a
 * run updates the one run item: concurrent transactions on it are cancelled as conflicting and sent
 * again with jittered backoff, so many reports at once all land, each counted once. A refused delivery
 * condition returns the delivery as it is (`ALL_OLD`), so telling a repeat from a stale or an early
 * attempt costs no read of its own.
 */

/** The transaction's actions, in the order sent: what a cancellation's reasons are indexed by. */
const DELIVERY = 0;
const RUN = 1;
const NOTIFICATION = 2;

/** What a refused transaction's reasons say; a skipped delivery was never sent: there is no outcome of it to report. */
function refusal(ref: DeliveryRef, delivery: Record<string, AttributeValue> | undefined): RecordResult {
  const key = keys.delivery(ref.deploymentId, ref.notificationId, ref.runId, ref.deliveryId);
  const current = delivery && decodeDeliveryState(delivery, key);
  return current && current.status !== 'skipped' ? { outcome: 'changed', current } : { outcome: 'unknown' };
}

export const outcomeStore: OutcomeStore = {
  record(ref, from, report, now, event): Promise<RecordResult> {
    const failed = report.status === 'failed';
    const failedEntry = indexKeys.failedDelivery(
      ref.deploymentId,
      ref.notificationId,
      ref.runId,
      ref.deliveryId,
    );
    const deliveryUpdate = {
      TableName: tableName(),
      Key: keys.delivery(ref.deploymentId, ref.notificationId, ref.runId, ref.deliveryId),
      // A failed delivery enters the run's failed list (gsi1), which a retry reads (and leaves it).
      UpdateExpression: failed
        ? 'SET #status = :to, #error = :error, updatedAt = :now, gsi1pk = :failedPk, gsi1sk = :failedSk'
        : 'SET #status = :to, #error = :error, updatedAt = :now',
      ConditionExpression: '#status = :from AND attempts = :attempt',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
      ExpressionAttributeValues: {
        ':to': report.status,
        ':error': failed ? (report.error ?? null) : null,
        ':now': new Date(now).toISOString(),
        ':from': from.status,
        ':attempt': from.attempts,
        ...(failed && { ':failedPk': failedEntry.gsi1pk, ':failedSk': failedEntry.gsi1sk }),
      },
    };
    const runUpdate = {
      TableName: tableName(),
      Key: keys.run(ref.deploymentId, ref.notificationId, ref.runId),
      UpdateExpression: 'ADD recipients.#to :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#to': report.status },
      ExpressionAttributeValues: { ':one': 1 },
    };
    const actions = [
      { Update: deliveryUpdate },
      { Update: runUpdate },
      // A deleted notification's items wait for the purge: its reports are 404 from the delete on.
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.notification(ref.deploymentId, ref.notificationId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      // Its `delivery.failed` message, when an endpoint wants it: recorded with the outcome or not at all.
      ...eventPuts(event),
    ];
    return transact<RecordResult>(
      () => documentClient().send(new TransactWriteCommand({ TransactItems: actions })),
      {
        written: { outcome: 'recorded' },
        cancelled: ({ failedAt, itemAt }) => {
          if (failedAt(NOTIFICATION) || failedAt(RUN)) return { outcome: 'unknown' };
          if (failedAt(DELIVERY)) return refusal(ref, itemAt(DELIVERY));
          return undefined;
        },
      },
      contendedRetries,
    );
  },

  async settle(ref, now) {
    // The run and whether its completion is wanted as a webhook message, in one read.
    const { item, subscribed } = await readWithSubscriptions(
      keys.run(ref.deploymentId, ref.notificationId, ref.runId),
      ref.deploymentId,
    );
    const run = item && decodeRun(item);
    if (!run) return undefined;
    const settled = await settleRun(run, now, (completed) =>
      runEvent(completed, subscribed, eventRecorder.newEventId(now), now),
    );
    return isComplete(settled.status) && !isComplete(run.status) ? settled : undefined;
  },
};
