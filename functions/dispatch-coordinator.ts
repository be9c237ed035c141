import type { Context } from 'aws-lambda';
import { config } from '#lib/config';
import { fireByOf, planWorkers, workerFiresPerSecond } from '#lib/domain/dispatch/dispatch-fanout';
import { countSettledRun } from '#lib/domain/governance/suspension';
import { settleStalledRuns } from '#lib/domain/runs/outcomes';
import { startWorker } from '#lib/jobs/dispatch-workers';
import { logger } from '#lib/log';
import { dueCounts } from '#lib/store/dispatch/due-counts';
import { suspensionStore } from '#lib/store/governance/notification-suspension';
import { stalledRunStore } from '#lib/store/runs/run-status';

/**
 * Started every minute by an EventBridge rule: counts what is due in each shard of the due index and
 * starts one dispatcher worker (functions/dispatch.ts) per group of shards, asynchronously, so that a
 * busy minute is fired by as many workers as it needs, each within its own timeout. A worker that
 * measures itself slower than planned hands what it would not fire in the minute on to workers it
 * starts itself. Then settles the runs a dead outcome report left unsettled (`settleStalledRuns`), the
 * minute's one step that needs no worker.
 */
export async function handler(_event: unknown, _context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const now = Date.now();
  const worker = process.env.DISPATCH_WORKER_FUNCTION;
  if (!worker) throw new Error('DISPATCH_WORKER_FUNCTION names no function');
  const counts = await dueCounts(now);
  const plan = planWorkers(counts, {
    workerFiresPerSecond: workerFiresPerSecond(config().dispatchConcurrency),
    workerSeconds: config().dispatchWorkerSeconds,
  });
  const fireBy = fireByOf(now);
  // Every worker is asked for, even when one is refused: the others' shards fire this minute.
  const started = await Promise.allSettled(
    plan.workers.map((shards) => startWorker(worker, { slices: shards.map((shard) => ({ shard })), fireBy })),
  );
  const settled = await settleStalledRuns(stalledRunStore, now)
    .then(async (runs) => {
      for (const run of runs)
        await countSettledRun(suspensionStore, run, config().suspendAfterFailedRuns, now);
      return runs;
    })
    .catch((error: unknown) => {
      // The next minute tries again; the workers' starts decide whether the coordinator failed.
      logger.error('settling runs left awaiting outcomes failed', { error: (error as Error).name });
      return [];
    });
  const refused = plan.workers.filter((_, index) => started[index]?.status === 'rejected');
  const due = counts.reduce((sum, count) => sum + count, 0);
  logger.info(`dispatch ${new Date(now).toISOString()}: ${due} due, ${plan.workers.length} workers`, {
    due,
    workers: plan.workers.length,
    refused: refused.length,
    slowestShardSeconds: plan.slowestShardSeconds,
    settledRuns: settled.length,
  });
  // A failed coordinator is what its alarm watches; EventBridge retries it, and its retry counts afresh.
  if (refused.length > 0)
    throw new Error(
      `${refused.length} of ${plan.workers.length} dispatcher workers were not started (shards ${refused.flat().join(', ')})`,
    );
  return { due, workers: plan.workers };
}
