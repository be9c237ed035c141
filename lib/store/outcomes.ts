import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OutcomeStore, RecordResult } from '#lib/domain/outcomes';
import { isComplete } from '#lib/domain/runs';
import { documentClient, tableName } from '#lib/store/client';
import { decodeDeliveryState } from '#lib/store/codecs/runs';
import { contendedRetries, transact } from '#lib/store/conditional';
import * as indexKeys from '#lib/store/index-keys';
import * as keys from '#lib/store/item-keys';
import { currentRun, settleRun } from '#lib/store/run-status';

/**
 * Outcome reports in storage. A report is one transaction of two updates: the delivery, on condition
 * that it is still in the state the decision was made from, and the run's counts, on condition that
 * the run exists (a run deleted with its notification is not written back). Every report of a run
 * updates the one run item: concurrent transactions on it are cancelled as conflicting and sent
 * again with jittered backoff, so many reports at once all land, each counted once.
 */

export const outcomeStore: OutcomeStore = {
  async deliveryState(ref) {
    const key = keys.delivery(ref.deploymentId, ref.notificationId, ref.runId, ref.deliveryId);
    const { Item } = await documentClient().send(
      new GetCommand({
        TableName: tableName(),
        Key: key,
        ConsistentRead: true,
        ProjectionExpression: '#status, attempts',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    const state = Item && decodeDeliveryState(Item, key);
    // A skipped delivery was never sent: there is no outcome of it to report.
    return state?.status === 'skipped' ? undefined : state;
  },

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
    return transact<RecordResult>(
      () =>
        documentClient().send(
          new TransactWriteCommand({ TransactItems: [{ Update: deliveryUpdate }, { Update: runUpdate }] }),
        ),
      {
        written: 'recorded',
        cancelled: ({ failedAt }) => {
          if (failedAt(0)) return 'delivery_changed';
          if (failedAt(1)) return 'run_gone';
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
