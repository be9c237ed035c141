import type { DispatchStore, Lease, RunDeliveryStore } from '#lib/domain/dispatch/dispatch-ports';
import type { ConsoleUser } from '#lib/domain/entities';
import type { RecipientCounts, Run, RunRef } from '#lib/domain/runs/runs';
import { decodeNotification, decodeScheduleEntry } from '#lib/store/codecs/notifications';
import { decodeRecipientRow } from '#lib/store/codecs/recipients';
import {
  decodeRun,
  encodeDelivery,
  encodeRun,
  recipientCountPath,
  runAttributes,
  STORED_DISPATCHING,
} from '#lib/store/codecs/runs';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { batchGetAll, batchWriteAll } from '#lib/store/dynamo/batch';
import { tableName } from '#lib/store/dynamo/client';
import { conditionHeld, ifConditionHolds } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { updateItem } from '#lib/store/dynamo/items';
import {
  awaitingOutcomesIndex,
  DUE_INDEX,
  dueIndexKeys,
  RECIPIENT_PREFIX,
  tableKeySchema,
} from '#lib/store/dynamo/keys';
import { queryPage, stringAttribute } from '#lib/store/dynamo/query';
import { absent, conditionOf, is } from '#lib/store/dynamo/update-expression';
import { notificationIsLive } from '#lib/store/notifications/notification-guard';
import { readNotificationItems } from '#lib/store/notifications/scheduled-notifications';
import { settleRun } from '#lib/store/runs/run-status';
import { suppressedAmong } from '#lib/store/suppressions/suppressions';

/**
 * A run's deliveries written page by page under its lease: what a dispatcher pass and a send-now
 * share (lib/store/dispatch/dispatch.ts adds the pass's due index, lib/store/runs/send-now.ts the send-now limit). Every
 * write is conditional on the lease the writer holds, so a writer whose lease was taken over stops.
 */

export const runKey = (ref: RunRef) => keys.run(ref.deploymentId, ref.id, ref.runId);

/** The put that creates a run: only if it does not exist, so of two writers of the same run id one does. */
export const runClaim = (run: Run, lease: Lease | undefined) => ({
  TableName: tableName(),
  Item: encodeRun(run, lease),
  // An instant's run id is the instant: this is what claims the instant.
  ...conditionOf(absent(tableKeySchema.partitionKey)),
});

/**
 * A notification and its schedule entry's due key, as the dispatcher, send-now and retries read it;
 * standalone so that a function that needs only this read bundles only it, not the whole dispatch store.
 */
export const findNotification: DispatchStore['findNotification'] = async (ref) => {
  const { item, entry } = await readNotificationItems(ref.deploymentId, ref.id);
  if (!item) return undefined;
  return {
    notification: decodeNotification(item),
    dueKey: entry ? decodeScheduleEntry(entry).dueKey : undefined,
  };
};

/** A page of a run's deliveries, written as they are planned. */
const putDeliveries: DispatchStore['putDeliveries'] = async (run, deliveries) => {
  // Puts of items keyed by run and recipient: writing a page again after a crash writes the same items.
  await batchWriteAll(
    deliveries.map((delivery) => ({ PutRequest: { Item: encodeDelivery(run, delivery) } })),
  );
};

export const runDeliveryStore: RunDeliveryStore = {
  notificationIsLive,
  putDeliveries,

  async recipientsPage(ref, after, limit) {
    const pk = keys.notificationPartition(ref.deploymentId, ref.id);
    const page = await queryPage(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :recipients)',
        ExpressionAttributeValues: { ':pk': pk, ':recipients': RECIPIENT_PREFIX },
        ConsistentRead: true,
        Limit: limit,
      },
      after === undefined ? undefined : { pk, sk: after },
    );
    return { rows: page.items.map(decodeRecipientRow), last: stringAttribute(page.next, 'sk') };
  },

  async users(ids) {
    const items = await batchGetAll([...new Set(ids)].map((id) => keys.user(id)));
    const users = items.map(decodeConsoleUser);
    return new Map<number, ConsoleUser>(users.map((user) => [user.id, user]));
  },

  suppressedAmong,

  saveProgress(ref, lease, cursor, counts, renewed) {
    return conditionHeld(() =>
      updateItem(runKey(ref), {
        set: {
          [runAttributes.cursor]: cursor,
          ...dispatchCounts(counts),
          [runAttributes.leaseUntil]: renewed,
          [DUE_INDEX.sortKey]: dueIndexKeys.run(ref.deploymentId, ref.id, ref.runId, renewed).gsi3sk,
        },
        condition: leaseHeld(lease),
      }),
    );
  },

  async finishRun(ref, lease, counts) {
    const finished = await ifConditionHolds(() =>
      // Out of the due index, into the runs awaiting outcomes (the same index, another partition).
      updateItem(
        runKey(ref),
        {
          set: {
            [runAttributes.status]: 'dispatched',
            ...dispatchCounts(counts),
            ...awaitingOutcomesIndex.run(ref.deploymentId, ref.id, ref.runId, Date.now()),
          },
          remove: [runAttributes.leaseOwner, runAttributes.leaseUntil, runAttributes.cursor],
          condition: leaseHeld(lease),
        },
        'ALL_NEW',
      ),
    );
    if (!finished) return false;
    // Outcomes may all have come in while the run was still being written: the last word is then ours.
    await settleRun(decodeRun(finished));
    return true;
  },

  async releaseLease(ref, lease, now) {
    await conditionHeld(() =>
      updateItem(runKey(ref), {
        set: {
          [runAttributes.leaseUntil]: now,
          [DUE_INDEX.sortKey]: dueIndexKeys.run(ref.deploymentId, ref.id, ref.runId, now).gsi3sk,
        },
        condition: leaseHeld(lease),
      }),
    );
  },
};

/**
 * The dispatcher writes the counts it made (queued, skipped) and never the outcome counts, which
 * renderer reports add concurrently.
 */
const dispatchCounts = (counts: Pick<RecipientCounts, 'queued' | 'skipped'>) => ({
  [recipientCountPath('queued')]: counts.queued,
  [recipientCountPath('skipped')]: counts.skipped,
});

/** A lease is ours while the run is pending and names us as its owner. */
const leaseHeld = (lease: Lease) => [
  is(runAttributes.status, STORED_DISPATCHING),
  is(runAttributes.leaseOwner, lease.owner),
];
