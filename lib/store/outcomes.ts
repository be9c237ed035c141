import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { backoff } from '#lib/concurrency';
import type { OutcomeStore, RecordResult } from '#lib/domain/outcomes';
import { deliveryStatuses } from '#lib/domain/runs';
import { UnavailableError } from '#lib/errors';
import { documentClient, tableName } from '#lib/store/client';
import { indexKeys, keys } from '#lib/store/keys';
import { currentRun, settleRun } from '#lib/store/run-status';

/**
 * Outcome reports in storage. A report is one transaction of two updates: the delivery, on condition
 * that it is still in the state the decision was made from, and the run's counts, on condition that
 * the run exists (a run deleted with its notification is not written back). Every report of a run
 * updates the one run item: concurrent transactions on it are cancelled as conflicting and retried
 * here with jittered backoff, so many reports at once all land, each counted once.
 */

/** Conflicts are expected when hundreds of reports of one run arrive together: more tries than a rare fault gets. */
const MAX_TRANSACTION_ATTEMPTS = 16;
const BASE_DELAY_MS = 20;
/** Retries wait at most base × 2^this, so a report under heavy contention keeps trying within its time. */
const MAX_BACKOFF_DOUBLINGS = 6;

const transientReasons = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'TransactionConflict',
]);

export const outcomeStore: OutcomeStore = {
  async deliveryState(ref) {
    const { Item } = await documentClient().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.delivery(ref.deploymentId, ref.notificationId, ref.runId, ref.deliveryId),
        ConsistentRead: true,
        ProjectionExpression: '#status, attempts',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    const status = deliveryStatuses.find((known) => known === Item?.status);
    if (!Item || !status || status === 'skipped') return undefined;
    return { status, attempts: typeof Item.attempts === 'number' ? Item.attempts : 1 };
  },

  async record(ref, from, report, now): Promise<RecordResult> {
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
    for (let attempt = 1; ; attempt++) {
      try {
        await documentClient().send(
          new TransactWriteCommand({ TransactItems: [{ Update: deliveryUpdate }, { Update: runUpdate }] }),
        );
        return 'recorded';
      } catch (error) {
        const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
        if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return 'delivery_changed';
        if (reasons?.[1]?.Code === 'ConditionalCheckFailed') return 'run_gone';
        const transient =
          reasons?.some((reason) => transientReasons.has(reason.Code ?? '')) ||
          (error as Error).name === 'TransactionConflictException';
        if (!transient) throw error;
        if (attempt >= MAX_TRANSACTION_ATTEMPTS) throw new UnavailableError(undefined, { cause: error });
        await backoff(Math.min(attempt, MAX_BACKOFF_DOUBLINGS), BASE_DELAY_MS);
      }
    }
  },

  async settle(ref, now) {
    const run = await currentRun(ref);
    if (!run) return undefined;
    const settled = await settleRun(run, now);
    const completes = (status: string) => status === 'completed' || status === 'completed_with_failures';
    return completes(settled.status) && !completes(run.status) ? settled : undefined;
  },
};
