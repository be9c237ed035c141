import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OutcomeStore, RecordResult } from '#lib/domain/runs/outcomes';
import { type DeliveryRef, isComplete } from '#lib/domain/runs/runs';
import { decodeDeliveryState } from '#lib/store/codecs/runs';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { contendedRetries, transact } from '#lib/store/dynamo/conditional';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { currentRun, settleRun } from '#lib/store/runs/run-status';

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
  record(ref, from, report, now): Promise<RecordResult> {
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
    const run = await currentRun(ref);
    if (!run) return undefined;
    const settled = await settleRun(run, now);
    return isComplete(settled.status) && !isComplete(run.status) ? settled : undefined;
  },
};
