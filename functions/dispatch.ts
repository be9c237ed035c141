import type { Context } from 'aws-lambda';
import { config } from '#lib/config';
import { dispatchPass } from '#lib/domain/dispatch';
import { passCounts, summaryLine } from '#lib/domain/dispatch-summary';
import { jobSink } from '#lib/jobs/job-sink';
import { log } from '#lib/log';
import { dispatchStore } from '#lib/store/runs';

/**
 * The dispatcher, started every minute by an EventBridge rule: one pass over the due index. An
 * entry that fails is logged and left for the next pass; the function itself fails only when the
 * index cannot be read, and then Lambda's retry is just another pass.
 */
export async function handler(_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const now = Date.now();
  const summary = await dispatchPass(
    dispatchStore,
    jobSink(),
    {
      now,
      misfireGraceMinutes: config().misfireGraceMinutes,
      remainingTimeMs: () => context.getRemainingTimeInMillis(),
    },
    (error, entry) => log.error('dispatch entry failed', { entry, error: (error as Error).name }),
  );
  log.info(summaryLine(now, summary), passCounts(summary));
  return passCounts(summary);
}
