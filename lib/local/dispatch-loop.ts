import { clockFrom, randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { passCounts, summaryLine } from '#lib/domain/dispatch/dispatch-summary';
import type { PassSummary } from '#lib/domain/dispatch/pass-context';
import { countSettledRun } from '#lib/domain/governance/suspension';
import { settleStalledRuns } from '#lib/domain/runs/outcomes';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { jobSink } from '#lib/jobs/job-sink';
import { sweepOutbox } from '#lib/jobs/outbox-sink';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { suspensionStore } from '#lib/store/governance/notification-suspension';
import { stalledRunStore } from '#lib/store/runs/run-status';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';

/**
 * One pass as of `now` against the configured table and sink, with its one-line summary, at the
 * deployed dispatcher's settings (DISPATCH_CONCURRENCY, MISFIRE_GRACE_MINUTES). Without a queue the
 * pass starts by sweeping the outbox of what a killed sender left. As the deployed coordinator's
 * minute does, it then settles the runs a dead outcome report left unsettled.
 */
export async function dispatchOnce(
  now: number,
): Promise<{ summary: PassSummary; settled: number; line: string }> {
  const { deliveryQueueUrl, outboxDir } = config();
  if (!deliveryQueueUrl) await sweepOutbox(outboxDir, now);
  const summary = await dispatchPass(dispatchStore, jobSink(), {
    now,
    clock: clockFrom(now),
    randomHex,
    events: eventRecorder,
    planner: schedulePlanner,
    misfireGraceMinutes: config().misfireGraceMinutes,
    concurrency: config().dispatchConcurrency,
  });
  const settled = await settleStalledRuns(stalledRunStore, now);
  for (const run of settled)
    await countSettledRun(suspensionStore, run, config().suspendAfterFailedRuns, {
      recorder: eventRecorder,
      now,
    });
  const settledNote = settled.length > 0 ? `; ${settled.length} runs left awaiting outcomes settled` : '';
  return { summary, settled: settled.length, line: `${summaryLine(now, summary)}${settledNote}` };
}

/** Into each minute by this much, so that an instant on the minute is due when the pass reads. */
const PASS_OFFSET_MS = 1_000;

/**
 * The deployed rule's stand-in under `npm start`: a pass at once, then one a second into every
 * minute, each printing its line unless it found nothing to do. Passes never overlap; a failed one is
 * printed and the next goes on.
 */
export function startDispatchLoop(print: (line: string) => void): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    try {
      const { summary, settled, line } = await dispatchOnce(Date.now());
      if (settled > 0 || Object.values(passCounts(summary)).some((count) => count > 0)) print(line);
    } catch (error) {
      print(`dispatch failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (stopped) return;
    const now = Date.now();
    timer = setTimeout(run, 60_000 - (now % 60_000) + PASS_OFFSET_MS);
  };
  void run();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
