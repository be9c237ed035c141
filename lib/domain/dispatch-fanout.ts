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

export interface FanOutSettings {
  /** Fires per second one worker keeps up (its concurrency over the time one fire takes). */
  workerFiresPerSecond: number;
  /** Seconds of firing a worker may plan for: its timeout less the reserve it stops in. */
  workerSeconds: number;
}

export interface FanOutPlan {
  /** The shards each worker reads. */
  workers: number[][];
  /** The longest any shard takes at its partition's pace: past the minute, its worker leaves the rest for the next. */
  slowestShardSeconds: number;
}

/**
 * Shards with something due, largest first, packed into as few workers as their capacity allows
 * (first fit): a worker takes shards while their entries fit what it fires in its time, and a shard
 * larger than that has a worker of its own.
 */
export function planWorkers(dueByShard: readonly number[], settings: FanOutSettings): FanOutPlan {
  const capacity = Math.max(1, settings.workerFiresPerSecond * settings.workerSeconds);
  const shards = dueByShard
    .map((due, shard) => ({ shard, due }))
    .filter(({ due }) => due > 0)
    .sort((a, b) => b.due - a.due);
  const workers: { shards: number[]; due: number }[] = [];
  for (const { shard, due } of shards) {
    const fits = workers.find((worker) => worker.due + due <= capacity);
    if (fits) {
      fits.shards.push(shard);
      fits.due += due;
    } else workers.push({ shards: [shard], due });
  }
  return {
    workers: workers.map((worker) => worker.shards.sort((a, b) => a - b)),
    slowestShardSeconds: (shards[0]?.due ?? 0) / FIRES_PER_SECOND_PER_SHARD,
  };
}
