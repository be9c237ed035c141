import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OutcomeReport, OutcomeStore, RecordResult } from '#lib/domain/runs/outcomes';
import { type DeliveryRef, isComplete, jobIdOf, type Run, settledStatus } from '#lib/domain/runs/runs';
import { type Suppression, suppressionOfBounce } from '#lib/domain/suppressions/suppressions';
import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { wantedEvent } from '#lib/domain/webhooks/recording';
import { runEvent } from '#lib/domain/webhooks/run-events';
import {
  decodeDelivery,
  decodeDeliveryState,
  decodeRun,
  deliveryAttributes,
  recipientCountPath,
} from '#lib/store/codecs/runs';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { contendedRetries, transact } from '#lib/store/dynamo/conditional';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { itemUpdate } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { conditionOf, exists, is } from '#lib/store/dynamo/update-expression';
import { settleRun } from '#lib/store/runs/run-status';
import { suppressionAction } from '#lib/store/suppressions/suppressions';
import { eventPuts } from '#lib/store/webhooks/outbox';
import {
  eventRecorder,
  readWithSubscriptions,
  subscriptionsAmong,
  subscriptionsKeyToRead,
} from '#lib/store/webhooks/subscriptions';

/**
 * Outcome reports in storage. A report is one transaction: the delivery's update, on condition that it
 * is still in the state the decision was made from; the run's counts, on condition that the run exists;
 * and a check that the notification exists, so that a report for a deleted notification's job (its
 * items wait for the purge) writes nothing and is 404, also when it races the delete. Every report of a
 * run updates the one run item: concurrent transactions on it are cancelled as conflicting and sent
 * again with jittered backoff, so many reports at once all land, each counted once. A refused delivery
 * condition returns the delivery as it is (`ALL_OLD`), so telling a repeat from a stale or an early
 * attempt costs no read of its own.
 *
 * A report with a `bounce` also suppresses the address its delivery went to, in the same transaction.
 * The address is on the delivery item, so such a report reads the delivery first, and the run with it
 * in the same BatchGetItem: the run as that read saw it plus this report is what a settle needs, so a
 * bounce that completes its run costs a read, the transaction and the settle, as many requests as any
 * report that completes its run. When another report moved the counts in between, the settle's
 * condition fails or the run looks incomplete, and the run is read back as for any report.
 */

/** The transaction's actions, in the order sent: what a cancellation's reasons are indexed by. */
const DELIVERY = 0;
const RUN = 1;
const NOTIFICATION = 2;
const SUPPRESSION = 3;

/** What a refused transaction's reasons say; a skipped delivery was never sent: there is no outcome of it to report. */
function refusal(ref: DeliveryRef, delivery: Record<string, AttributeValue> | undefined): RecordResult {
  const key = keys.delivery(ref.deploymentId, ref.notificationId, ref.runId, ref.deliveryId);
  const current = delivery && decodeDeliveryState(delivery, key);
  return current && current.status !== 'skipped' ? { outcome: 'changed', current } : { outcome: 'unknown' };
}

/**
 * The delivery and its run as they stand, and the deployment's webhook subscriptions unless cached, in
 * one read: what a bounce report needs before its write.
 */
async function deliveryAndRun(ref: DeliveryRef) {
  const deliveryKey = keys.delivery(ref.deploymentId, ref.notificationId, ref.runId, ref.deliveryId);
  const runKey = keys.run(ref.deploymentId, ref.notificationId, ref.runId);
  const subscriptionsKey = subscriptionsKeyToRead(ref.deploymentId);
  const items = await batchGetAll([deliveryKey, runKey, ...(subscriptionsKey ? [subscriptionsKey] : [])]);
  const delivery = items.find((item) => item.sk === deliveryKey.sk);
  const run = items.find((item) => item.sk === runKey.sk);
  const subscribed = await subscriptionsAmong(items, ref.deploymentId, subscriptionsKey);
  return { delivery, run: run && decodeRun(run), subscribed };
}

/** The completion's webhook message, recorded with the settle when an endpoint wants its type. */
const completionEvent =
  (subscribed: ReadonlySet<WebhookEventType>, now: number) =>
  (settled: Run): WebhookEvent | undefined =>
    runEvent(settled, subscribed, eventRecorder.newEventId(now), now);

/** The run as a report's write leaves it, counted from the run read before it. */
const withOutcome = (run: Run, status: OutcomeReport['status']): Run => ({
  ...run,
  recipients: { ...run.recipients, [status]: run.recipients[status] + 1 },
});

export const outcomeStore: OutcomeStore = {
  async record(ref, from, report, now, eventOf): Promise<RecordResult> {
    if (report.bounce === undefined) {
      const subscribed = eventOf && (await eventRecorder.subscribedTypes(ref.deploymentId));
      const event = subscribed && eventOf?.(subscribed);
      const result = await recordOutcome(ref, from, report, now, { event });
      return result.outcome === 'recorded' ? { outcome: 'recorded', subscribed } : (result as RecordResult);
    }
    const read = await deliveryAndRun(ref);
    if (!read.delivery || !read.run) return { outcome: 'unknown' };
    const delivery = decodeDelivery(read.delivery);
    // Not in the state the decision was made from: as a refused transaction answers, without a write.
    if (delivery.status === 'skipped') return { outcome: 'unknown' };
    if (delivery.status !== from.status || delivery.attempts !== from.attempts)
      return { outcome: 'changed', current: { status: delivery.status, attempts: delivery.attempts } };
    const email = delivery.recipient.email;
    // An embed user stored without an address has nothing to suppress: the outcome alone is recorded.
    const suppression =
      email === ''
        ? undefined
        : suppressionOfBounce(
            ref.deploymentId,
            email,
            report.bounce,
            { runId: ref.runId, jobId: jobIdOf(ref) },
            now,
          );
    const event = eventOf?.(read.subscribed);
    const added =
      suppression &&
      wantedEvent(read.subscribed, eventRecorder, ref.deploymentId, 'suppression.added', suppression, now);
    let result = await recordOutcome(ref, from, report, now, { event, suppression, added });
    // The address was suppressed already: nothing was added, so the report is recorded without that event.
    if (result.outcome === 'suppressed already')
      result = await recordOutcome(ref, from, report, now, { event, suppression });
    return result.outcome === 'recorded'
      ? { outcome: 'recorded', run: withOutcome(read.run, report.status), subscribed: read.subscribed }
      : (result as RecordResult);
  },

  async settle(ref, now, written, known) {
    if (written && isComplete(settledStatus(written))) {
      const subscribed = known ?? (await eventRecorder.subscribedTypes(ref.deploymentId));
      const settled = await settleRun(written, now, completionEvent(subscribed, now));
      // Its condition held: the counts were as this report left them, and the run is complete now.
      if (isComplete(settled.status) && !isComplete(written.status)) return settled;
    }
    // The run and whether its completion is wanted as a webhook message, in one read.
    const { item, subscribed } = await readWithSubscriptions(
      keys.run(ref.deploymentId, ref.notificationId, ref.runId),
      ref.deploymentId,
      known,
    );
    const run = item && decodeRun(item);
    if (!run) return undefined;
    const settled = await settleRun(run, now, completionEvent(subscribed, now));
    return isComplete(settled.status) && !isComplete(run.status) ? settled : undefined;
  },
};

/** What a report's transaction writes besides the delivery and the run. */
interface ReportWrites {
  /** Its own event (`delivery.failed`). */
  event?: WebhookEvent;
  /** A bounce's suppression of the delivery's address. */
  suppression?: Suppression;
  /** The suppression's `suppression.added` event: then the suppression is written only if new. */
  added?: WebhookEvent;
}

function recordOutcome(
  ref: DeliveryRef,
  from: Parameters<OutcomeStore['record']>[1],
  report: OutcomeReport,
  now: number,
  { event, suppression, added }: ReportWrites,
): Promise<RecordResult | { outcome: 'suppressed already' }> {
  const failed = report.status === 'failed';
  const failedEntry = indexKeys.failedDelivery(
    ref.deploymentId,
    ref.notificationId,
    ref.runId,
    ref.deliveryId,
  );
  const deliveryUpdate = {
    // A failed delivery enters the run's failed list (gsi1), which a retry reads (and leaves it).
    ...itemUpdate(keys.delivery(ref.deploymentId, ref.notificationId, ref.runId, ref.deliveryId), {
      set: {
        [deliveryAttributes.status]: report.status,
        [deliveryAttributes.error]: failed ? (report.error ?? null) : null,
        [deliveryAttributes.updatedAt]: new Date(now).toISOString(),
        ...(failed && failedEntry),
      },
      condition: [is(deliveryAttributes.status, from.status), is(deliveryAttributes.attempts, from.attempts)],
    }),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  const runUpdate = itemUpdate(keys.run(ref.deploymentId, ref.notificationId, ref.runId), {
    add: { [recipientCountPath(report.status)]: 1 },
    condition: [exists(tableKeySchema.partitionKey)],
  });
  const actions = [
    { Update: deliveryUpdate },
    { Update: runUpdate },
    // A deleted notification's items wait for the purge: its reports are 404 from the delete on.
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.notification(ref.deploymentId, ref.notificationId),
        ...conditionOf(exists(tableKeySchema.partitionKey)),
      },
    },
    ...(suppression ? [suppressionAction(suppression, { onlyIfNew: added !== undefined })] : []),
    // Its `delivery.failed` message, when an endpoint wants it: recorded with the outcome or not at all.
    ...eventPuts(event),
    ...eventPuts(added),
  ];
  return transact<RecordResult | { outcome: 'suppressed already' }>(
    () => documentClient().send(new TransactWriteCommand({ TransactItems: actions })),
    {
      written: { outcome: 'recorded' },
      cancelled: ({ failedAt, itemAt }) => {
        if (failedAt(NOTIFICATION) || failedAt(RUN)) return { outcome: 'unknown' };
        if (failedAt(DELIVERY)) return refusal(ref, itemAt(DELIVERY));
        if (suppression && failedAt(SUPPRESSION)) return { outcome: 'suppressed already' };
        return undefined;
      },
    },
    contendedRetries,
  );
}
