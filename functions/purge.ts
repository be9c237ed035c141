import type { Context } from 'aws-lambda';
import { clockFrom } from '#lib/clock';
import { invocationDeadline } from '#lib/deadline';
import { purgePass, purgeSummaryLine } from '#lib/domain/deletion/purge';
import { logger } from '#lib/log';
import { purgeStore } from '#lib/store/deletion/purge-store';

/**
 * The purge, started every minute by an EventBridge rule: one pass over the deleted notifications
 * whose partitions are still being emptied (lib/domain/deletion/purge.ts). It stops in time; the next
 * minute's pass goes on where it stopped. A purge that fails is logged and left for the next pass.
 */
export async function handler(_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const now = Date.now();
  const summary = await purgePass(
    purgeStore,
    { now, clock: clockFrom(now), deadline: invocationDeadline(context) },
    (error, purge) =>
      logger.error('purge failed', {
        purge: { deploymentId: purge.deploymentId, notificationId: purge.id },
        error: (error as Error).name,
      }),
  );
  logger.info(purgeSummaryLine(now, summary), { ...summary });
  // A failed purge fails the invocation too, so that the errors alarm sees it.
  if (summary.failed > 0) throw new Error(`${summary.failed} purge(s) failed; the next pass retries them`);
  return summary;
}
