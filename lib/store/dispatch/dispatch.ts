import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DueSlice } from '#lib/domain/dispatch/dispatch-fanout';
import type { DispatchStore, DueEntry, EntryMove } from '#lib/domain/dispatch/dispatch-ports';
import { decodeDueEntry, decodeRunProgress } from '#lib/store/codecs/dispatch';
import {
  decodeNotification,
  decodeScheduleEntry,
  dueAttributes,
  scheduleEntryAttributes,
  scheduleMarksOf,
} from '#lib/store/codecs/notifications';
import { decodeRecipientRow } from '#lib/store/codecs/recipients';
import { encodeDelivery, runAttributes, STORED_DISPATCHING } from '#lib/store/codecs/runs';
import { findNotification, runClaim, runDeliveryStore, runKey } from '#lib/store/dispatch/run-delivery';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld, ifConditionHolds, transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { itemUpdate, updateItem } from '#lib/store/dynamo/items';
import {
  DUE_INDEX,
  DUE_INDEX_SHARDS,
  dueIndexKeys,
  NOTIFICATION_ITEMS_PREFIX,
  RECIPIENT_PREFIX,
} from '#lib/store/dynamo/keys';
import { belowInIndex, queryAll, queryPage, stringAttribute, withinInIndex } from '#lib/store/dynamo/query';
import { compare, is } from '#lib/store/dynamo/update-expression';
import { findDashboard } from '#lib/store/embedding/dashboards';
import { storeScheduleEntry } from '#lib/store/notifications/scheduled-notifications';
import { eventPuts } from '#lib/store/webhooks/outbox';

/**
 * Runs and deliveries in their notification's partition, and the scheduler's due index. Every write
 * here is conditional on what the dispatcher read (the index entry it saw, the lease it holds), so
 * two dispatchers, or one and its own retry, can both try a step and only one of them does it.
 */

/**
 * Every entry of one slice of a shard due at or before `now`, oldest first, paged past 1 MB: the
 * whole shard, or the part after and through the keys a pass handed on.
 */
async function dueInSlice({ shard, after, through }: DueSlice, now: number): Promise<DueEntry[]> {
  const partition = dueIndexKeys.shard(shard);
  const items = await queryAll(
    through === undefined && after === undefined
      ? belowInIndex(DUE_INDEX, partition, dueIndexKeys.dueBound(now))
      : withinInIndex(DUE_INDEX, partition, after, through ?? dueIndexKeys.dueBound(now)),
  );
  return items.flatMap((item) => decodeDueEntry(item, shard) ?? []);
}

const allShards: DueSlice[] = Array.from({ length: DUE_INDEX_SHARDS }, (_, shard) => ({ shard }));

/** The write that moves a schedule entry, on the condition that it is still the one read. */
function entryMoveUpdate(ref: { deploymentId: number; id: number }, move: EntryMove) {
  const due = dueAttributes(ref.deploymentId, ref.id, move.upcoming[0]);
  return itemUpdate(keys.scheduleEntry(ref.deploymentId, ref.id), {
    set: { [scheduleEntryAttributes.upcoming]: [...move.upcoming], ...due },
    remove: due ? [] : [DUE_INDEX.partitionKey, DUE_INDEX.sortKey],
    // Only from the entry that was read: a schedule changed meanwhile keeps its own entry.
    condition: [
      is(DUE_INDEX.sortKey, move.dueKey),
      is(scheduleEntryAttributes.scheduleVersion, move.scheduleVersion),
    ],
  });
}

/** The sort keys a due notification's first read covers: its item, its entry, then its recipients. */
const firstReadRange = { from: NOTIFICATION_ITEMS_PREFIX, to: `${RECIPIENT_PREFIX}\uffff` };

export const dispatchStore: DispatchStore = {
  ...runDeliveryStore,
  findNotification,
  findDashboard,

  async dueEntries(now, slices = allShards) {
    return (await Promise.all(slices.map((slice) => dueInSlice(slice, now)))).flat();
  },

  async dueNotification(ref, limit) {
    const page = await queryPage({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.notificationPartition(ref.deploymentId, ref.id),
        ':from': firstReadRange.from,
        ':to': firstReadRange.to,
      },
      ConsistentRead: true,
      // The item and the entry come first.
      Limit: limit + 2,
    });
    const { items } = page;
    const entry = items.find((item) => item.entity === 'SCHEDULE');
    const notification = items.find((item) => item.entity === 'NOTIFICATION');
    const rows = items
      .filter((item) => stringAttribute(item, 'sk')?.startsWith(RECIPIENT_PREFIX))
      .map(decodeRecipientRow);
    return {
      notification: notification && {
        value: decodeNotification(notification),
        ...scheduleMarksOf(notification),
      },
      schedule: entry && decodeScheduleEntry(entry),
      firstPage: { rows, last: stringAttribute(page.next, 'sk') },
    };
  },

  storeSchedule: storeScheduleEntry,

  async clearChangeMark(ref, changeKey) {
    await conditionHeld(() =>
      updateItem(keys.notification(ref.deploymentId, ref.id), {
        remove: [DUE_INDEX.partitionKey, DUE_INDEX.sortKey],
        condition: [is(DUE_INDEX.sortKey, changeKey)],
      }),
    );
  },

  claimInstant(run, lease, move, deliveries, event) {
    const ref = { deploymentId: run.deploymentId, id: run.notificationId };
    const send = () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: runClaim(run, lease) },
            { Update: entryMoveUpdate(ref, move) },
            ...deliveries.map((delivery) => ({
              Put: { TableName: tableName(), Item: encodeDelivery(run, delivery) },
            })),
            ...eventPuts(event),
          ],
        }),
      );
    return transact(send, {
      written: 'claimed' as const,
      cancelled: ({ failedAt }) => {
        if (failedAt(1)) return 'entry-moved';
        if (failedAt(0)) return 'run-exists';
        return undefined;
      },
    });
  },

  moveEntry(ref, move) {
    return conditionHeld(() => documentClient().send(new UpdateCommand(entryMoveUpdate(ref, move))));
  },

  createRun(run, lease) {
    return conditionHeld(() => documentClient().send(new PutCommand(runClaim(run, lease))));
  },

  async takeOver(ref, now, lease) {
    const taken = await ifConditionHolds(() =>
      updateItem(
        runKey(ref),
        {
          set: {
            [runAttributes.leaseOwner]: lease.owner,
            [runAttributes.leaseUntil]: lease.until,
            [DUE_INDEX.sortKey]: dueIndexKeys.run(ref.deploymentId, ref.id, ref.runId, lease.until).gsi3sk,
          },
          condition: [
            is(runAttributes.status, STORED_DISPATCHING),
            compare(runAttributes.leaseUntil, '<=', now),
          ],
        },
        'ALL_NEW',
      ),
    );
    return taken && decodeRunProgress(taken);
  },
};
