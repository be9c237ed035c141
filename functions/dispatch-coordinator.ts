import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { config } from '#lib/config';
import { planWorkers } from '#lib/domain/dispatch-fanout';
import { logger } from '#lib/log';
import { dueCounts } from '#lib/store/due-counts';

/**
 * Started every minute by an EventBridge rule: counts what is due in each shard of the due index and
 * starts one dispatcher worker (functions/dispatch.ts) per group of shards, asynchronously, so that a
 * busy minute is fired by as many workers as it needs, each within its own timeout.
 */

/** A fire takes about this long deployed: four DynamoDB requests of a few milliseconds, one after another. */
const FIRE_SECONDS = 0.04;
/**
 * Seconds of firing a worker is given: well inside its 60 s timeout and the minute, so that a
 * slower DynamoDB leaves room; a shard at its partition's pace (250 fires a second) fills it at 5,000.
 */
const WORKER_SECONDS = 20;

const lambda = new LambdaClient({});

export async function handler(_event: unknown, _context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const now = Date.now();
  const worker = process.env.DISPATCH_WORKER_FUNCTION;
  if (!worker) throw new Error('DISPATCH_WORKER_FUNCTION names no function');
  const counts = await dueCounts(now);
  const plan = planWorkers(counts, {
    workerFiresPerSecond: config().dispatchConcurrency / FIRE_SECONDS,
    workerSeconds: WORKER_SECONDS,
  });
  await Promise.all(
    plan.workers.map((shards) =>
      lambda.send(
        new InvokeCommand({
          FunctionName: worker,
          // Queued by Lambda and retried by it on a failed start; a pass is safe to repeat.
          InvocationType: 'Event',
          Payload: JSON.stringify({ shards }),
        }),
      ),
    ),
  );
  const due = counts.reduce((sum, count) => sum + count, 0);
  logger.info(`dispatch ${new Date(now).toISOString()}: ${due} due, ${plan.workers.length} workers`, {
    due,
    workers: plan.workers.length,
    slowestShardSeconds: plan.slowestShardSeconds,
  });
  return { due, workers: plan.workers };
}
