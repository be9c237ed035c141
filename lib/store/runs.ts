import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DispatchStore, DueEntry, EntryMove, Lease } from '#lib/domain/dispatch';
import type { ConsoleUser } from '#lib/domain/entities';
import type { RecipientCounts, Run, RunRef } from '#lib/domain/runs';
import { batchGetAll, batchWriteAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { decodeDueEntry, decodeRunProgress } from '#lib/store/codecs/dispatch';
import {
  decodeNotification,
  decodeScheduleEntry,
  dueAttributes,
  scheduleMarksOf,
} from '#lib/store/codecs/notifications';
import { decodeRecipientRow } from '#lib/store/codecs/recipients';
import { decodeRun, encodeDelivery, encodeRun, STORED_DISPATCHING } from '#lib/store/codecs/runs';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { conditionHeld, ifConditionHolds, transact } from '#lib/store/conditional';
import { findDashboard } from '#lib/store/dashboards';
import {
  awaitingOutcomesIndex,
  DUE_INDEX,
  DUE_INDEX_SHARDS,
  dueIndexKeys,
  keys,
  NOTIFICATION_ITEMS_PREFIX,
  RECIPIENT_PREFIX,
} from '#lib/store/keys';
import { notificationIsLive } from '#lib/store/notification-guard';
import { belowInIndex, queryAll, queryPage, stringAttribute } from '#lib/store/query';
import { settleRun } from '#lib/store/run-status';
import { readNotificationItems, storeScheduleEntry } from '#lib/store/scheduled-notifications';

/**
 * Runs and deliveries in their notification's partition, and the scheduler's due index. Every write
 * here is conditional on what the dispatcher read (the index entry it saw, the lease it holds), so
 * two dispatchers, or one and its own retry, can both try a step and only one of them does it.
 */

const runKey = (ref: RunRef) => keys.run(ref.deploymentId, ref.id, ref.runId);

/** Every entry of one shard due at or before `now`, oldest first, paged past 1 MB. */
async function dueInShard(shard: number, now: number): Promise<DueEntry[]> {
  const items = await queryAll(
    belowInIndex(DUE_INDEX, dueIndexKeys.shard(shard), dueIndexKeys.dueBound(now)),
  );
  return items.flatMap((item) => decodeDueEntry(item, shard) ?? []);
}

const allShards = Array.from({ length: DUE_INDEX_SHARDS }, (_, shard) => shard);

/** The write that moves a schedule entry, on the condition that it is still the one read. */
function entryMoveUpdate(ref: { deploymentId: number; id: number }, move: EntryMove) {
  const due = dueAttributes(ref.deploymentId, ref.id, move.upcoming[0]);
  const names: Record<string, string> = {
    '#pk': DUE_INDEX.partitionKey,
    '#sk': DUE_INDEX.sortKey,
    '#upcoming': 'upcoming',
    '#version': 'scheduleVersion',
  };
  const values: Record<string, unknown> = {
    ':from': move.dueKey,
    ':version': move.scheduleVersion,
    ':upcoming': [...move.upcoming],
  };
  let update = 'SET #upcoming = :upcoming REMOVE #pk, #sk';
  if (due) {
    values[':pkNext'] = due.gsi3pk;
    values[':skNext'] = due.gsi3sk;
    update = 'SET #upcoming = :upcoming, #pk = :pkNext, #sk = :skNext';
  }
  return {
    TableName: tableName(),
    Key: keys.scheduleEntry(ref.deploymentId, ref.id),
    UpdateExpression: update,
    // Only from the entry that was read: a schedule changed meanwhile keeps its own entry.
    ConditionExpression: '#sk = :from AND #version = :version',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The put that creates a run: only if it does not exist, so of two writers of the same run id one does. */
export const runClaim = (run: Run, lease: Lease | undefined) => ({
  TableName: tableName(),
  Item: encodeRun(run, lease),
  // An instant's run id is the instant: this is what claims the instant.
  ConditionExpression: 'attribute_not_exists(pk)',
});

/** The sort keys a due notification's first read covers: its item, its entry, then its recipients. */
const firstReadRange = { from: NOTIFICATION_ITEMS_PREFIX, to: `${RECIPIENT_PREFIX}\uffff` };

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
export const putDeliveries: DispatchStore['putDeliveries'] = async (run, deliveries) => {
  // Puts of items keyed by run and recipient: writing a page again after a crash writes the same items.
  await batchWriteAll(
    deliveries.map((delivery) => ({ PutRequest: { Item: encodeDelivery(run, delivery) } })),
  );
};

export const dispatchStore: DispatchStore = {
  notificationIsLive,
  findNotification,
  findDashboard,
  putDeliveries,

  async dueEntries(now, shards = allShards) {
    return (await Promise.all(shards.map((shard) => dueInShard(shard, now)))).flat();
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
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.notification(ref.deploymentId, ref.id),
          UpdateExpression: 'REMOVE #pk, #sk',
          ConditionExpression: '#sk = :mark',
          ExpressionAttributeNames: { '#pk': DUE_INDEX.partitionKey, '#sk': DUE_INDEX.sortKey },
          ExpressionAttributeValues: { ':mark': changeKey },
        }),
      ),
    );
  },

  claimInstant(run, lease, move, deliveries) {
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
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: runKey(ref),
          UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until, #sk = :sk',
          ConditionExpression: '#status = :pending AND leaseUntil <= :now',
          ExpressionAttributeNames: { '#sk': DUE_INDEX.sortKey, '#status': 'status' },
          ExpressionAttributeValues: {
            ':owner': lease.owner,
            ':until': lease.until,
            ':sk': dueIndexKeys.run(ref.deploymentId, ref.id, ref.runId, lease.until).gsi3sk,
            ':pending': STORED_DISPATCHING,
            ':now': now,
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return taken?.Attributes && decodeRunProgress(taken.Attributes);
  },

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

  saveProgress(ref, lease, cursor, counts, renewed) {
    return conditionHeld(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: runKey(ref),
          UpdateExpression: `SET #cursor = :cursor, ${setDispatchCounts}, leaseUntil = :until, #sk = :sk`,
          ConditionExpression: leaseHeld,
          ExpressionAttributeNames: { '#cursor': 'cursor', '#sk': DUE_INDEX.sortKey, '#status': 'status' },
          ExpressionAttributeValues: {
            ':cursor': cursor,
            ...dispatchCountValues(counts),
            ':until': renewed,
            ':sk': dueIndexKeys.run(ref.deploymentId, ref.id, ref.runId, renewed).gsi3sk,
            ...leaseValues(lease),
          },
        }),
      ),
    );
  },

  async finishRun(ref, lease, counts) {
    const finished = await ifConditionHolds(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: runKey(ref),
          // Out of the due index, into the runs awaiting outcomes (the same index, another partition).
          UpdateExpression: `SET #status = :dispatched, ${setDispatchCounts}, #pk = :awaitingPk, #sk = :awaitingSk REMOVE leaseOwner, leaseUntil, #cursor`,
          ConditionExpression: leaseHeld,
          ExpressionAttributeNames: {
            '#cursor': 'cursor',
            '#pk': DUE_INDEX.partitionKey,
            '#sk': DUE_INDEX.sortKey,
            '#status': 'status',
          },
          ExpressionAttributeValues: {
            ':dispatched': 'dispatched',
            ...dispatchCountValues(counts),
            ...leaseValues(lease),
            ...awaitingValues(ref),
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    if (!finished) return false;
    // Outcomes may all have come in while the run was still being written: the last word is then ours.
    if (finished.Attributes) await settleRun(decodeRun(finished.Attributes));
    return true;
  },

  async releaseLease(ref, lease, now) {
    await conditionHeld(() =>
      documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: runKey(ref),
          UpdateExpression: 'SET leaseUntil = :now, #sk = :sk',
          ConditionExpression: leaseHeld,
          ExpressionAttributeNames: { '#sk': DUE_INDEX.sortKey, '#status': 'status' },
          ExpressionAttributeValues: {
            ':now': now,
            ':sk': dueIndexKeys.run(ref.deploymentId, ref.id, ref.runId, now).gsi3sk,
            ...leaseValues(lease),
          },
        }),
      ),
    );
  },
};

/**
 * The dispatcher writes the counts it made (queued, skipped) and never the outcome counts, which
 * renderer reports add concurrently.
 */
const setDispatchCounts = 'recipients.queued = :queued, recipients.skipped = :skipped';
const dispatchCountValues = (counts: Pick<RecipientCounts, 'queued' | 'skipped'>) => ({
  ':queued': counts.queued,
  ':skipped': counts.skipped,
});

const awaitingValues = (ref: RunRef) => {
  const entry = awaitingOutcomesIndex.run(ref.deploymentId, ref.id, ref.runId, Date.now());
  return { ':awaitingPk': entry.gsi3pk, ':awaitingSk': entry.gsi3sk };
};

/** A lease is ours while the run is pending and names us as its owner. */
const leaseHeld = '#status = :pending AND leaseOwner = :owner';
const leaseValues = (lease: Lease) => ({ ':pending': STORED_DISPATCHING, ':owner': lease.owner });
