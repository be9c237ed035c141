import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { clockFrom, randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { invocationDeadline } from '#lib/deadline';
import { dispatchPass } from '#lib/domain/dispatch';
import { FIRES_PER_SECOND_PER_SHARD } from '#lib/domain/dispatch-fanout';
import { passCounts, summaryLine } from '#lib/domain/dispatch-summary';
import { schedulePlanner } from '#lib/domain/schedule-planning';
import { jobSink } from '#lib/jobs/job-sink';
import { logger } from '#lib/log';
import { publishDispatchMetrics, publishRunsAwaitingOutcomes } from '#lib/metrics';
import { DUE_INDEX_SHARDS } from '#lib/store/keys';
import { countRunsAwaitingSince } from '#lib/store/run-status';
import { dispatchStore } from '#lib/store/runs';
import { OUTCOMES_OVERDUE_AFTER_MS } from '#lib/telemetry-names';

/** What the coordinator sends: the due-index shards this invocation reads. */
const dispatchEvent = z.object({
  shards: z.array(z.int().check(z.gte(0), z.lt(DUE_INDEX_SHARDS))).check(z.minLength(1)),
});

/**
 * A dispatcher worker, started by the coordinator (functions/dispatch-coordinator.ts) once per group
 * of due-index shards each minute: one pass over those shards, paced so that no shard's index
 * partition takes more than it can. An
 * entry that fails is logged and left for the next pass; the function itself fails only when the
 * index cannot be read, and then Lambda's retry is just another pass.
 */
export async function handler(event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const now = Date.now();
  const shards = dispatchEvent.safeParse(event);
  const summary = await dispatchPass(
    dispatchStore,
    jobSink(),
    {
      now,
      clock: clockFrom(now),
      randomHex,
      planner: schedulePlanner,
      misfireGraceMinutes: config().misfireGraceMinutes,
      concurrency: config().dispatchConcurrency,
      maxPerSecondPerShard: FIRES_PER_SECOND_PER_SHARD,
      // The coordinator names each invocation's shards; anything else (a test event) reads them all.
      shards: shards.success ? shards.data.shards : undefined,
      deadline: invocationDeadline(context),
    },
    (error, entry) => logger.error('dispatch entry failed', { entry, error: (error as Error).name }),
  );
  const counts = passCounts(summary);
  logger.info(summaryLine(now, summary), counts);
  publishDispatchMetrics(counts);
  // One invocation a minute (the one with shard 0) counts the runs whose outcomes are overdue.
  if (!shards.success || shards.data.shards.includes(0)) {
    publishRunsAwaitingOutcomes(await countRunsAwaitingSince(now - OUTCOMES_OVERDUE_AFTER_MS));
  }
  return counts;
}
