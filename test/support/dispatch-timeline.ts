import {
  CONTINUATION_START_SECONDS,
  FIRES_PER_SECOND_PER_SHARD,
  planHandOn,
  planWorkers,
} from '#lib/domain/dispatch/dispatch-fanout';

/**
 * A busy minute as deployed, on a timeline of modelled seconds: the coordinator's plan
 * (`planWorkers`), each worker firing its shards in turn at its pace, no shard faster than its
 * partition's, and handing on what it would not fire by the end of the window (`planHandOn`, the
 * rule the pass applies to the pace it measures). The bench and the fan-out tests read it.
 */

export interface TimelineSettings {
  /** The pace a worker keeps (fires a second), whatever it was planned at. */
  workerPace: number;
  /** The pace the coordinator plans with, and the seconds of it a worker is planned. */
  plannedPace: number;
  plannedSeconds: number;
  /** The second of the minute the coordinator runs in. */
  coordinatorAt: number;
}

export interface Timeline {
  workers: number;
  continuations: number;
  /** The second of the minute the last due entry was fired at. */
  lastFireAt: number;
  /** Fired by the end of the window (second 59), and later (handed on at a deadline past it). */
  inTime: number;
  late: number;
}

const STEP = 0.05;
const WINDOW_END = 59;
/** A worker's timeout less the reserve a pass stops in. */
const WORKER_SECONDS = 55;
const WARM_UP = 1;

interface Worker {
  lanes: Map<number, number>;
  startsAt: number;
  done: number;
  reviewedAt: number;
}

export function simulateMinute(dueByShard: readonly number[], settings: TimelineSettings): Timeline {
  const { workers: plan } = planWorkers(dueByShard, {
    workerFiresPerSecond: settings.plannedPace,
    workerSeconds: settings.plannedSeconds,
  });
  const start = (shards: Iterable<readonly [number, number]>, at: number): Worker => ({
    lanes: new Map(shards),
    startsAt: at + CONTINUATION_START_SECONDS,
    done: 0,
    reviewedAt: 0,
  });
  const workers = plan.map((shards) =>
    start(
      shards.map((shard) => [shard, dueByShard[shard] ?? 0] as const),
      settings.coordinatorAt,
    ),
  );
  const timeline: Timeline = { workers: workers.length, continuations: 0, lastFireAt: 0, inTime: 0, late: 0 };
  const handOn = (worker: Worker, groups: number[][], at: number) => {
    for (const shards of groups) {
      workers.push(
        start(
          shards.map((shard) => [shard, worker.lanes.get(shard) ?? 0] as const),
          at,
        ),
      );
      for (const shard of shards) worker.lanes.delete(shard);
      timeline.continuations += 1;
    }
  };
  for (let t = 0; workers.some((worker) => worker.lanes.size > 0); t += STEP) {
    for (const worker of [...workers]) {
      if (t < worker.startsAt || worker.lanes.size === 0) continue;
      const elapsed = t - worker.startsAt;
      if (elapsed >= WORKER_SECONDS) {
        handOn(worker, [[...worker.lanes.keys()]], t);
        continue;
      }
      let budget = settings.workerPace * STEP;
      const lanes = [...worker.lanes];
      for (const [index, [shard, left]] of lanes.entries()) {
        const share = Math.min(left, FIRES_PER_SECOND_PER_SHARD * STEP, budget / (lanes.length - index));
        budget -= share;
        worker.done += share;
        if (t + STEP <= WINDOW_END) timeline.inTime += share;
        else timeline.late += share;
        if (left - share <= 1e-9) worker.lanes.delete(shard);
        else worker.lanes.set(shard, left - share);
        if (share > 0) timeline.lastFireAt = t + STEP;
      }
      if (elapsed >= WARM_UP && t - worker.reviewedAt >= 1 && t < WINDOW_END) {
        worker.reviewedAt = t;
        const secondsLeft = Math.min(WINDOW_END - t, WORKER_SECONDS - elapsed);
        const { continuations } = planHandOn(
          worker.lanes,
          { done: worker.done, seconds: elapsed },
          secondsLeft,
        );
        handOn(worker, continuations, t);
      }
    }
  }
  timeline.inTime = Math.round(timeline.inTime);
  timeline.late = Math.round(timeline.late);
  timeline.lastFireAt = Math.round(timeline.lastFireAt * 10) / 10;
  return timeline;
}
