import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DispatchStore, DueEntry, EntryMove, Lease, RunProgress, RunRef } from '#lib/domain/dispatch';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { RecipientCounts, RecipientRow } from '#lib/domain/runs';
import { batchGetAll, batchWriteAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { decodeDashboard, decodeDashboardLink } from '#lib/store/codecs/dashboards';
import {
  decodeNotification,
  decodeScheduleEntry,
  dueAttributes,
  scheduleMarksOf,
} from '#lib/store/codecs/notifications';
import { decodeRecipient } from '#lib/store/codecs/recipients';
import { decodeRun, encodeDelivery, encodeRun, STORED_DISPATCHING } from '#lib/store/codecs/runs';
import { decodeConsoleUser } from '#lib/store/codecs/users';
import { dueIndexPages } from '#lib/store/due-counts';
import { getItem, type Item } from '#lib/store/items';
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
import { settleRun } from '#lib/store/run-status';
import { storeScheduleEntry } from '#lib/store/scheduled-notifications';

/**
 * Runs and deliveries in their notification's partition, and the scheduler's due index. Every write
 * here is conditional on what the dispatcher read (the index entry it saw, the lease it holds), so
 * two dispatchers, or one and its own retry, can both try a step and only one of them does it.
 */

const runKey = (ref: RunRef) => keys.run(ref.deploymentId, ref.id, ref.runId);

/** Runs a conditional write; false when its condition did not hold. */
async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

function entryFromItem(item: Item, shard: number): DueEntry | undefined {
  if (item.entity === 'SCHEDULE' || item.entity === 'NOTIFICATION') {
    return {
      shard,
      kind: item.entity === 'SCHEDULE' ? 'notification' : 'change',
      deploymentId: item.deploymentId as number,
      notificationId: item.id as number,
      dueKey: item[DUE_INDEX.sortKey] as string,
      dueAt: dueIndexKeys.instantOf(item[DUE_INDEX.sortKey] as string),
    };
  }
  if (item.entity === 'RUN') {
    return {
      shard,
      kind: 'run',
      deploymentId: item.deploymentId as number,
      notificationId: item.notificationId as number,
      runId: item.runId as string,
    };
  }
  return undefined;
}

/** Every entry of one shard due at or before `now`, oldest first, paged past 1 MB. */
async function dueInShard(shard: number, now: number): Promise<DueEntry[]> {
  const entries: DueEntry[] = [];
  for await (const page of dueIndexPages(dueIndexKeys.shard(shard), dueIndexKeys.dueBound(now))) {
    for (const item of page.Items ?? []) {
      const entry = entryFromItem(item, shard);
      if (entry) entries.push(entry);
    }
  }
  return entries;
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

/** The sort keys a due notification's first read covers: its item, its entry, then its recipients. */
const firstReadRange = { from: NOTIFICATION_ITEMS_PREFIX, to: `${RECIPIENT_PREFIX}\uffff` };

/**
 * A notification and its schedule entry's due key (one Query of the partition's first items), as
 * the dispatcher, send-now and retries read it; standalone so that a function that needs only this
 * read bundles only it, not the whole dispatch store.
 */
export const findNotification: DispatchStore['findNotification'] = async (ref) => {
  const { pk } = keys.notification(ref.deploymentId, ref.id);
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': NOTIFICATION_ITEMS_PREFIX },
      ConsistentRead: true,
    }),
  );
  const item = Items.find((candidate) => candidate.entity === 'NOTIFICATION');
  if (!item) return undefined;
  const entry = Items.find((candidate) => candidate.entity === 'SCHEDULE');
  return {
    notification: decodeNotification(item),
    dueKey: entry ? decodeScheduleEntry(entry).dueKey : undefined,
  };
};

/** A deployment's dashboard by its id, through the link item to its public id. */
export const findDashboard: DispatchStore['findDashboard'] = async (deploymentId, dashboardId) => {
  const link = await getItem(keys.dashboardById(deploymentId, dashboardId));
  if (!link) return undefined;
  const item = await getItem(keys.dashboard(decodeDashboardLink(link, deploymentId).publicId));
  const dashboard: Dashboard | undefined = item ? decodeDashboard(item) : undefined;
  return dashboard?.deploymentId === deploymentId && dashboard.id === dashboardId ? dashboard : undefined;
};

/** A page of a run's deliveries, written as they are planned. */
export const putDeliveries: DispatchStore['putDeliveries'] = async (run, deliveries) => {
  // Puts of items keyed by run and recipient: writing a page again after a crash writes the same items.
  await batchWriteAll(
    deliveries.map((delivery) => ({
      PutRequest: { Item: encodeDelivery(run, delivery) },
    })),
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
    const { pk } = keys.notification(ref.deploymentId, ref.id);
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': firstReadRange.from, ':to': firstReadRange.to },
        ConsistentRead: true,
        // The item and the entry come first.
        Limit: limit + 2,
      }),
    );
    const items = page.Items ?? [];
    const entry = items.find((item) => item.entity === 'SCHEDULE');
    const notification = items.find((item) => item.entity === 'NOTIFICATION');
    const rows: RecipientRow[] = items
      .filter((item) => (item.sk as string).startsWith(RECIPIENT_PREFIX))
      .map((item) => ({ key: item.sk as string, recipient: decodeRecipient(item) }));
    return {
      notification: notification && {
        value: decodeNotification(notification),
        ...scheduleMarksOf(notification),
      },
      schedule: entry && decodeScheduleEntry(entry),
      firstPage: { rows, last: page.LastEvaluatedKey?.sk as string | undefined },
    };
  },

  storeSchedule: storeScheduleEntry,

  async clearChangeMark(ref, changeKey) {
    await conditionally(() =>
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

  async claimInstant(run, lease, move, deliveries) {
    const ref = { deploymentId: run.deploymentId, id: run.notificationId };
    try {
      await documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            // The claim: an instant's run id is the instant, so only one writer can create it.
            {
              Put: {
                TableName: tableName(),
                Item: encodeRun(run, lease),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Update: entryMoveUpdate(ref, move) },
            ...deliveries.map((delivery) => ({
              Put: { TableName: tableName(), Item: encodeDelivery(run, delivery) },
            })),
          ],
        }),
      );
      return 'claimed';
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
      if (reasons?.[1]?.Code === 'ConditionalCheckFailed') return 'entry-moved';
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return 'run-exists';
      throw error;
    }
  },

  moveEntry(ref, move) {
    return conditionally(() => documentClient().send(new UpdateCommand(entryMoveUpdate(ref, move))));
  },

  createRun(run, lease) {
    return conditionally(() =>
      documentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: encodeRun(run, lease),
          // The claim: an instant's run id is the instant, so only one writer can create it.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  },

  async takeOver(ref, now, lease) {
    try {
      const { Attributes } = await documentClient().send(
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
      );
      if (!Attributes) return undefined;
      const progress: RunProgress = {
        run: decodeRun(Attributes),
        cursor: Attributes.cursor as string | undefined,
      };
      return progress;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  },

  async recipientsPage(ref, after, limit) {
    const { pk } = keys.notification(ref.deploymentId, ref.id);
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :recipients)',
        ExpressionAttributeValues: { ':pk': pk, ':recipients': RECIPIENT_PREFIX },
        ConsistentRead: true,
        Limit: limit,
        ...(after !== undefined && { ExclusiveStartKey: { pk, sk: after } }),
      }),
    );
    const rows: RecipientRow[] = (page.Items ?? []).map((item) => ({
      key: item.sk as string,
      recipient: decodeRecipient(item),
    }));
    return { rows, last: page.LastEvaluatedKey?.sk as string | undefined };
  },

  async users(ids) {
    const items = await batchGetAll([...new Set(ids)].map((id) => keys.user(id)));
    const users = items.map(decodeConsoleUser);
    return new Map<number, ConsoleUser>(users.map((user) => [user.id, user]));
  },

  saveProgress(ref, lease, cursor, counts, renewed) {
    return conditionally(() =>
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
    let finished: Item | undefined;
    const done = await conditionally(async () => {
      ({ Attributes: finished } = await documentClient().send(
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
      ));
    });
    // Outcomes may all have come in while the run was still being written: the last word is then ours.
    if (done && finished) await settleRun(decodeRun(finished));
    return done;
  },

  async releaseLease(ref, lease, now) {
    await conditionally(() =>
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
