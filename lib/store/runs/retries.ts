import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { HeldKey } from '#lib/domain/idempotency';
import type { RetryStore } from '#lib/domain/runs/retry';
import type { Delivery, JobRecipient, RunRef } from '#lib/domain/runs/runs';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { decodeRecipient } from '#lib/store/codecs/recipients';
import {
  decodeDelivery,
  deliveryAttributes,
  recipientCountPath,
  runAttributes,
  STORED_DISPATCHING,
} from '#lib/store/codecs/runs';
import { findNotification } from '#lib/store/dispatch/run-delivery';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { contendedRetries, transact } from '#lib/store/dynamo/conditional';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { itemUpdate } from '#lib/store/dynamo/items';
import { awaitingOutcomesIndex, indexes, tableKeySchema } from '#lib/store/dynamo/keys';
import { queryPage, stringAttribute } from '#lib/store/dynamo/query';
import { compare, conditionOf, exists, is } from '#lib/store/dynamo/update-expression';
import { findDashboard } from '#lib/store/embedding/dashboards';
import { claimKey, completeKey, keyDoneMark, keyInUse, releaseKey } from '#lib/store/idempotency';
import { notificationIsLive } from '#lib/store/notifications/notification-guard';
import { currentRun, settleRun } from '#lib/store/runs/run-status';
import { suppressedAmong } from '#lib/store/suppressions/suppressions';

/**
 * Retry in storage. A run's failed deliveries are the only items of their gsi1 partition, so a retry
 * reads them and nothing else. A page of them goes back to `queued` in one transaction together with
 * the run's counts, the check that the notification exists, on the first page that moves any the
 * retry's audit event and, on a retry's last page, its Idempotency-Key's done mark (96 deliveries and
 * those four: DynamoDB's 100 actions).
 */

type RequeueResult =
  | { moved: number }
  | { changed: Delivery[] }
  | { runGone: true }
  | { notificationGone: true };

/**
 * One transaction of a page of deliveries and their run, on the condition that the notification
 * exists, with a held key's done mark; sent again while it conflicts with the run's other writers
 * (outcome reports), like they are.
 */
function requeueOnce(
  ref: RunRef,
  deliveries: readonly Delivery[],
  now: number,
  held: HeldKey | undefined,
  event: NewAuditEvent | undefined,
): Promise<RequeueResult> {
  const updatedAt = new Date(now).toISOString();
  const awaiting = awaitingOutcomesIndex.run(ref.deploymentId, ref.id, ref.runId, now);
  const send = () =>
    documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          ...deliveries.map((delivery) => ({
            Update: itemUpdate(keys.delivery(ref.deploymentId, ref.id, ref.runId, delivery.deliveryId), {
              set: {
                [deliveryAttributes.status]: 'queued',
                [deliveryAttributes.attempts]: delivery.attempts + 1,
                [deliveryAttributes.error]: null,
                [deliveryAttributes.updatedAt]: updatedAt,
              },
              remove: [indexes.gsi1.partitionKey, indexes.gsi1.sortKey],
              condition: [
                is(deliveryAttributes.status, 'failed'),
                is(deliveryAttributes.attempts, delivery.attempts),
              ],
            }),
          })),
          {
            Update: {
              // Outcomes are awaited again: the run is dispatched until they are in.
              ...itemUpdate(keys.run(ref.deploymentId, ref.id, ref.runId), {
                set: { [runAttributes.status]: 'dispatched', [runAttributes.completedAt]: null, ...awaiting },
                add: { [recipientCountPath('failed')]: -deliveries.length },
                condition: [
                  exists(tableKeySchema.partitionKey),
                  compare(runAttributes.status, '<>', STORED_DISPATCHING),
                  compare(runAttributes.status, '<>', 'skipped'),
                ],
              }),
            },
          },
          // No record of a retry after the notification's delete: the purge may have swept already.
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: keys.notification(ref.deploymentId, ref.id),
              ...conditionOf(exists(tableKeySchema.partitionKey)),
            },
          },
          ...(held ? [{ Update: keyDoneMark(held, { kind: 'run', run: ref }) }] : []),
          ...(event ? [auditEventPut(event)] : []),
        ],
      }),
    );
  const [runAt, notificationAt, keyAt] = [deliveries.length, deliveries.length + 1, deliveries.length + 2];
  return transact<RequeueResult>(
    send,
    {
      written: { moved: deliveries.length },
      cancelled: ({ failedAt }) => {
        if (failedAt(notificationAt)) return { notificationGone: true };
        if (held && failedAt(keyAt)) throw keyInUse();
        const changed = deliveries.filter((_, i) => failedAt(i));
        if (changed.length > 0) return { changed };
        return failedAt(runAt) ? { runGone: true } : undefined;
      },
    },
    contendedRetries,
  );
}

export const retryStore: RetryStore = {
  suppressedAmong,
  claimKey,
  completeKey,
  releaseKey,
  findRun: (ref) => currentRun({ deploymentId: ref.deploymentId, notificationId: ref.id, runId: ref.runId }),
  findNotification,
  findDashboard,

  async failedPage(ref, after, limit) {
    const index = indexes.gsi1;
    const partition = indexKeys.failedDeliveriesOfRun(ref.deploymentId, ref.id, ref.runId);
    const page = await queryPage(
      {
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': partition },
        Limit: limit,
      },
      after === undefined
        ? undefined
        : {
            [index.partitionKey]: partition,
            [index.sortKey]: after,
            ...keys.delivery(ref.deploymentId, ref.id, ref.runId, after),
          },
    );
    const deliveries = page.items.map(decodeDelivery).filter((delivery) => delivery.status === 'failed');
    return { deliveries, last: stringAttribute(page.next, index.sortKey) };
  },

  async jobRecipients(ref, deliveries) {
    // An embed user's job carries the properties stored on its recipient row (a removed row: none).
    const embedKeys = deliveries
      .filter((delivery) => delivery.recipient.type === 'EMBED_USER')
      .map((delivery) => ({ pk: keys.notification(ref.deploymentId, ref.id).pk, sk: delivery.recipientKey }));
    const rows = new Map(
      (embedKeys.length > 0 ? await batchGetAll(embedKeys) : []).map((item) => [
        stringAttribute(item, 'sk'),
        decodeRecipient(item),
      ]),
    );
    return deliveries.map((delivery): JobRecipient => {
      const row = rows.get(delivery.recipientKey);
      return row?.type === 'EMBED_USER' ? { ...delivery.recipient, ...row.properties } : delivery.recipient;
    });
  },

  async requeue(ref, deliveries, now, held, event) {
    let pending = [...deliveries];
    while (pending.length > 0) {
      const result = await requeueOnce(ref, pending, now, held, event);
      if ('notificationGone' in result) return { gone: true };
      if ('moved' in result) return { gone: false, moved: result.moved, keyDone: held !== undefined };
      if ('runGone' in result) return { gone: false, moved: 0, keyDone: false };
      // Deliveries that changed meanwhile (a late success) are left; the rest are tried again.
      pending = pending.filter((delivery) => !result.changed.includes(delivery));
    }
    return { gone: false, moved: 0, keyDone: false };
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
