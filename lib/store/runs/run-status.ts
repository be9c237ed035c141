import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StalledRunStore } from '#lib/domain/runs/outcomes';
import { isComplete, type Run, settledStatus } from '#lib/domain/runs/runs';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { runEvent } from '#lib/domain/webhooks/run-events';
import { decodeRun, recipientCountPath, runAttributes } from '#lib/store/codecs/runs';
import { documentClient } from '#lib/store/dynamo/client';
import { conditionHeld, transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, itemUpdate } from '#lib/store/dynamo/items';
import { awaitingOutcomesIndex, DUE_INDEX } from '#lib/store/dynamo/keys';
import { allPages, belowInIndex, countAll, queryPage } from '#lib/store/dynamo/query';
import { absent, either, is } from '#lib/store/dynamo/update-expression';
import { eventPut } from '#lib/store/webhooks/outbox';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/**
 * A run's status follows its counts: every writer that changes them (an outcome report, a retry, the
 * dispatcher's last page) reads the run back and, when the status its counts call for differs from the
 * stored one, writes it, on condition that nothing changed since the read. A writer that loses that
 * race changed nothing: the one whose write moved the counts last settles the run.
 */

/** The run as it stands (a strongly consistent read), or undefined when it is gone. */
export async function currentRun(ref: {
  deploymentId: number;
  notificationId: number;
  runId: string;
}): Promise<Run | undefined> {
  const item = await getItem(keys.run(ref.deploymentId, ref.notificationId, ref.runId));
  return item && decodeRun(item);
}

/** A run written before outcomes were counted has no outcome counts: absent is 0. */
function countIs(outcome: 'delivered' | 'failed', run: Run) {
  const path = recipientCountPath(outcome);
  const count = run.recipients[outcome];
  return count === 0 ? either(absent(path), is(path, count)) : is(path, count);
}

/**
 * Writes the status `run`'s counts call for, if it differs; returns the run as it then stands. The
 * event `eventFor` makes of the settled run (its completion's webhook message, when an endpoint wants
 * it) is recorded in the same write: a run never completes without it, nor it without the run.
 */
export async function settleRun(
  run: Run,
  now: number = Date.now(),
  eventFor: (settled: Run) => WebhookEvent | undefined = () => undefined,
): Promise<Run> {
  const status = settledStatus(run);
  if (status === run.status) return run;
  const complete = isComplete(status);
  const completedAt = complete ? new Date(now).toISOString() : null;
  const awaiting = awaitingOutcomesIndex.run(run.deploymentId, run.notificationId, run.runId, now);
  // A complete run awaits nothing more: it leaves the runs awaiting outcomes; one awaiting again enters it.
  const update = itemUpdate(keys.run(run.deploymentId, run.notificationId, run.runId), {
    set: {
      [runAttributes.status]: status,
      [runAttributes.completedAt]: completedAt,
      ...(!complete && awaiting),
    },
    remove: complete ? [DUE_INDEX.partitionKey, DUE_INDEX.sortKey] : [],
    condition: [
      is(runAttributes.status, run.status),
      is(recipientCountPath('queued'), run.recipients.queued),
      countIs('delivered', run),
      countIs('failed', run),
    ],
  });
  const settledRun = { ...run, status, completedAt };
  const event = eventFor(settledRun);
  const settled = event
    ? await transact(
        () =>
          documentClient().send(
            new TransactWriteCommand({ TransactItems: [{ Update: update }, eventPut(event)] }),
          ),
        { written: true, cancelled: ({ failedAt }) => (failedAt(0) ? false : undefined) },
      )
    : await conditionHeld(() => documentClient().send(new UpdateCommand(update)));
  return settled ? settledRun : run;
}

/**
 * How many runs have awaited outcomes since before `instant`: read from the index, where only such
 * runs sort below the bound, so the cost follows the number of stuck runs, not the number of runs
 * (one counting Query per partition of the runs awaiting outcomes, in parallel).
 */
export async function countRunsAwaitingSince(instant: number): Promise<number> {
  const bound = awaitingOutcomesIndex.before(instant);
  const counts = await Promise.all(
    awaitingOutcomesIndex
      .partitions()
      .map((partition) => countAll(belowInIndex(DUE_INDEX, partition, bound))),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/**
 * Pages of the awaiting-outcomes index one check reads per partition: at about 0.5 KB an entry a 1 MB
 * page holds some 2,000 runs, so 4 pages hold more than a shard takes in the worst minute of the scale
 * model (~4,700, docs/scheduling.md), and a check reads a bounded amount whatever the backlog.
 */
const AWAITING_PAGES_PER_CHECK = 4;

/**
 * The runs awaiting outcomes as the index holds them (projection ALL: the run's status and counts, as
 * of a moment ago) and the conditional settle, for the dispatcher's minute: the index may lag a write,
 * and a settle from a stale copy changes nothing (its condition fails), so the next minute takes it.
 */
export const stalledRunStore: StalledRunStore = {
  async *awaitingSince(instant) {
    const bound = awaitingOutcomesIndex.before(instant);
    for (const partition of awaitingOutcomesIndex.partitions()) {
      let pages = 0;
      for await (const page of allPages((start) =>
        queryPage(belowInIndex(DUE_INDEX, partition, bound), start),
      )) {
        yield page.items.map(decodeRun);
        if (++pages >= AWAITING_PAGES_PER_CHECK) break;
      }
    }
  },
  async settle(run, now) {
    const subscribed = await eventRecorder.subscribedTypes(run.deploymentId);
    return settleRun(run, now, (settled) =>
      runEvent(settled, subscribed, eventRecorder.newEventId(now), now),
    );
  },
};
