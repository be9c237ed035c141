/**
 * How a busy minute is shared out, deployed: a coordinator counts what is due in each shard of the
 * due index and starts one worker (a dispatch pass over the shards it names) per group of shards.
 * A shard's entries all go to one worker, which paces them: each fire writes a few entries into the
 * shard's index partition (the run's lease entry in and out, the schedule entry's key moved), and a
 * partition takes at most 1,000 writes a second. docs/scheduling.md gives the model and its figures.
 */

/** Writes a fire makes into its shard's due-index partition: the run's lease entry in and out, the entry moved (2). */
const DUE_INDEX_WRITES_PER_FIRE = 4;
/** What DynamoDB lets one partition take. */
const PARTITION_WRITES_PER_SECOND = 1_000;
/** Fires per second one shard may take, at DUE_INDEX_WRITES_PER_FIRE writes each. */
export const FIRES_PER_SECOND_PER_SHARD = Math.floor(PARTITION_WRITES_PER_SECOND / DUE_INDEX_WRITES_PER_FIRE);

/** A fire takes about this long deployed: four DynamoDB requests of ~10 ms, one after another. */
const FIRE_SECONDS = 0.04;
/**
 * The worker's own work per fire (the SDK's requests, the cron code, the codecs): measured 4.5 ms of
 * CPU per fire on a loaded, shared core (`npm run bench`), taken as 2.5 ms on the worker's one full
 * vCPU (cdk/scheduler.ts). It bounds a worker at 400 fires a second, whatever its concurrency.
 */
const FIRE_CPU_SECONDS = 0.0025;

/** Fires per second one worker keeps up: its concurrency over a fire's time, within what its CPU does. */
export const workerFiresPerSecond = (concurrency: number) =>
  Math.min(concurrency / FIRE_SECONDS, 1 / FIRE_CPU_SECONDS);

/**
 * What a worker reads of one due-index shard: its entries due now, or, for a continuation, those
 * after the sort key `after` (exclusive) up to `through` (inclusive), the part its parent handed on.
 */
export interface DueSlice {
  shard: number;
  after?: string;
  through?: string;
}

export interface FanOutSettings {
  /** Fires per second one worker keeps up (its concurrency over the time one fire takes). */
  workerFiresPerSecond: number;
  /** Seconds of firing a worker may plan for: its timeout less the reserve it stops in. */
  workerSeconds: number;
}

export interface FanOutPlan {
  /** The shards each worker reads. */
  workers: number[][];
  /** The longest any shard takes at its partition's pace. */
  slowestShardSeconds: number;
}

/**
 * Shards with something due shared among as few workers as their capacity allows, evenly: the
 * shards, largest first, each to the least loaded worker, with one worker more whenever a shard
 * would fill one past its capacity. A shard's entries all go to one worker (its partition's pace is
 * one worker's to keep), so a shard larger than a worker's capacity has a worker of its own.
 */
export function planWorkers(dueByShard: readonly number[], settings: FanOutSettings): FanOutPlan {
  const capacity = Math.max(1, settings.workerFiresPerSecond * settings.workerSeconds);
  const shards = dueByShard
    .map((due, shard) => ({ shard, due }))
    .filter(({ due }) => due > 0)
    .sort((a, b) => b.due - a.due || a.shard - b.shard);
  const total = shards.reduce((sum, { due }) => sum + due, 0);
  // A shard alone always fits a worker: at one worker per shard the loop ends.
  for (let count = Math.min(Math.ceil(total / capacity), shards.length); ; count++) {
    const workers = Array.from({ length: count }, () => ({ shards: [] as number[], due: 0 }));
    const fits = shards.every(({ shard, due }) => {
      const worker = workers.reduce((least, candidate) => (candidate.due < least.due ? candidate : least));
      if (worker.shards.length > 0 && worker.due + due > capacity) return false;
      worker.shards.push(shard);
      worker.due += due;
      return true;
    });
    if (fits)
      return {
        workers: workers
          .filter((worker) => worker.due > 0)
          .map((worker) => worker.shards.sort((a, b) => a - b)),
        slowestShardSeconds: (shards[0]?.due ?? 0) / FIRES_PER_SECOND_PER_SHARD,
      };
  }
}

/** What a worker measures: the entries it has done and the seconds it took. */
export interface MeasuredPace {
  done: number;
  seconds: number;
}

/** A continuation is started and its first fires made in about this long (an invocation, a cold start). */
export const CONTINUATION_START_SECONDS = 2;

export interface HandOnPlan {
  /** The shards whose remaining entries the worker keeps. */
  keep: number[];
  /** The shards whose remaining entries go to each continuation. */
  continuations: number[][];
}

/**
 * What a worker keeps of the entries it has still to do, at the pace it measured, and what it hands
 * on: it keeps the shards it fires within `secondsLeft` at that pace (the largest one at least) and
 * shares the others among continuations, each planned what a worker at that pace fires in the time left once started.
 * Whole shards, as the coordinator plans them: a shard's partition is one worker's to pace.
 */
export function planHandOn(
  remainingByShard: ReadonlyMap<number, number>,
  pace: MeasuredPace,
  secondsLeft: number,
): HandOnPlan {
  const perSecond = pace.seconds > 0 ? pace.done / pace.seconds : Number.POSITIVE_INFINITY;
  const capacity = perSecond * Math.max(0, secondsLeft);
  const shards = [...remainingByShard]
    .filter(([, count]) => count > 0)
    .sort(([a, countA], [b, countB]) => countB - countA || a - b);
  const keep: number[] = [];
  const handed = new Map<number, number>();
  let kept = 0;
  for (const [shard, count] of shards) {
    // The worker keeps one shard at least: a continuation at its pace would fire it no sooner.
    if (kept + count <= capacity || keep.length === 0) {
      keep.push(shard);
      kept += count;
    } else handed.set(shard, count);
  }
  if (handed.size === 0) return { keep, continuations: [] };
  const dueByShard = Array.from(
    { length: Math.max(...handed.keys()) + 1 },
    (_, shard) => handed.get(shard) ?? 0,
  );
  const { workers } = planWorkers(dueByShard, {
    workerFiresPerSecond: Math.min(perSecond, Number.MAX_SAFE_INTEGER),
    workerSeconds: Math.max(1, secondsLeft - CONTINUATION_START_SECONDS),
  });
  return { keep, continuations: workers };
}

const MINUTE_MS = 60_000;
/** An instant fires within 60 s of it; a second is kept for the fires still in flight at the end. */
const FIRING_WINDOW_MS = 59_000;

/** When everything due at `now` should have fired: the window of the minute `now` is in. */
export const fireByOf = (now: number) => Math.floor(now / MINUTE_MS) * MINUTE_MS + FIRING_WINDOW_MS;
