import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { clockFrom, randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { invocationDeadline } from '#lib/deadline';
import { FIRES_PER_SECOND_PER_SHARD, fireByOf } from '#lib/domain/dispatch/dispatch-fanout';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { passCounts, summaryLine } from '#lib/domain/dispatch/dispatch-summary';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { startWorker } from '#lib/jobs/dispatch-workers';
import { jobSink } from '#lib/jobs/job-sink';
import { logger } from '#lib/log';
import { publishDispatchMetrics, publishRunsAwaitingOutcomes } from '#lib/metrics';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { DUE_INDEX_SHARDS } from '#lib/store/dynamo/keys';
import { countRunsAwaitingSince } from '#lib/store/runs/run-status';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';
import { OUTCOMES_OVERDUE_AFTER_MS } from '#lib/telemetry-names';

/** What the coordinator, or a worker handing on, sends: the due-index slices this invocation reads. */
const dispatchEvent = z.object({
  slices: z
    .array(
      z.object({
        shard: z.int().check(z.gte(0), z.lt(DUE_INDEX_SHARDS)),
        after: z.optional(z.string()),
        through: z.optional(z.string()),
      }),
    )
    .check(z.minLength(1)),
  fireBy: z.number(),
});

/**
 * A dispatcher worker, started by the coordinator (functions/dispatch-coordinator.ts) once per group
 * of due-index shards each minute: one pass over those shards, paced so that no shard's index
 * partition takes more than it can. It measures its pace as it goes and starts workers of its own
 * function (continuations) on the shards it would not fire within the minute, and on whatever it has
 * not started when its time runs out. An entry that fails is logged and left for the next pass; the
 * function itself fails only when the index cannot be read, and then the next minute's count finds
 * what it left.
 */
export async function handler(event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const now = Date.now();
  const work = dispatchEvent.safeParse(event);
  // Lambda names the running function: a continuation is another invocation of it.
  const self = process.env.AWS_LAMBDA_FUNCTION_NAME;
  const fireBy = work.success ? work.data.fireBy : fireByOf(now);
  const summary = await dispatchPass(
    dispatchStore,
    jobSink(),
    {
      now,
      clock: clockFrom(now),
      randomHex,
      events: eventRecorder,
      planner: schedulePlanner,
      misfireGraceMinutes: config().misfireGraceMinutes,
      concurrency: config().dispatchConcurrency,
      maxPerSecondPerShard: FIRES_PER_SECOND_PER_SHARD,
      // The coordinator names each invocation's slices; anything else (a test event) reads every shard.
      slices: work.success ? work.data.slices : undefined,
      deadline: invocationDeadline(context),
      fireBy,
      continuation: self
        ? { start: (slices) => startWorker(self, { slices: [...slices], fireBy }) }
        : undefined,
    },
    (error, entry) => logger.error('dispatch entry failed', { entry, error: (error as Error).name }),
  );
  const counts = passCounts(summary);
  logger.info(summaryLine(now, summary), counts);
  publishDispatchMetrics(counts);
  // One invocation a minute (the one with shard 0) counts the runs whose outcomes are overdue.
  if (!work.success || work.data.slices.some((slice) => slice.shard === 0 && slice.after === undefined)) {
    publishRunsAwaitingOutcomes(await countRunsAwaitingSince(now - OUTCOMES_OVERDUE_AFTER_MS));
  }
  return counts;
}
