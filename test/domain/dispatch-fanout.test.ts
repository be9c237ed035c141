import { describe, expect, it } from 'vitest';
import { FIRES_PER_SECOND_PER_SHARD, planWorkers, workerFiresPerSecond } from '#lib/domain/dispatch-fanout';
import { DUE_INDEX_SHARDS } from '#lib/store/keys';

/** The worst minute of the scale model in docs/scheduling.md: 300,000 due at once, spread by the shard hash. */
const WORST_MINUTE = 300_000;
const settings = { workerFiresPerSecond: workerFiresPerSecond(32), workerSeconds: 20 };
const evenly = (shards: number) =>
  Array.from(
    { length: shards },
    (_, shard) => Math.floor(WORST_MINUTE / shards) + (shard < WORST_MINUTE % shards ? 1 : 0),
  );

describe('sharing a minute out among dispatcher workers', () => {
  it('gives every shard with something due to exactly one worker, none over its capacity', () => {
    const due = evenly(DUE_INDEX_SHARDS);
    const { workers } = planWorkers(due, settings);
    expect(workers.flat().sort((a, b) => a - b)).toEqual(due.map((_, shard) => shard));
    for (const shards of workers) {
      const load = shards.reduce((sum, shard) => sum + (due[shard] as number), 0);
      expect(load).toBeLessThanOrEqual(settings.workerFiresPerSecond * settings.workerSeconds);
    }
    expect(planWorkers([0, 5, 0], settings).workers).toEqual([[1]]);
    expect(planWorkers(new Array(DUE_INDEX_SHARDS).fill(0), settings).workers).toEqual([]);
  });

  it('packs the shards, largest first, into the first worker they fit, each worker’s shards in order', () => {
    // 5 fires a second for 2 seconds: 10 entries a worker.
    const plan = planWorkers([3, 8, 0, 2, 7], { workerFiresPerSecond: 5, workerSeconds: 2 });
    expect(plan.workers).toEqual([
      [1, 3],
      [0, 4],
    ]);
    expect(plan.slowestShardSeconds).toBe(8 / FIRES_PER_SECOND_PER_SHARD);
    // A worker filled by two shards takes no third.
    expect(planWorkers([5, 5, 5], { workerFiresPerSecond: 5, workerSeconds: 2 }).workers).toEqual([
      [0, 1],
      [2],
    ]);
  });

  it('takes a worker’s pace from its concurrency, up to what its CPU fires', () => {
    // 40 ms a fire: 8 at once fire 200 a second; 2.5 ms of CPU a fire: never more than 400.
    expect(workerFiresPerSecond(8)).toBe(200);
    expect(workerFiresPerSecond(32)).toBe(400);
    expect(workerFiresPerSecond(1000)).toBe(400);
  });

  it('fires the worst minute within the minute at each index partition’s pace with the shards there are, and not with 16', () => {
    // A fire writes 4 entries into its shard's index partition, which takes 1,000 writes a second.
    expect(FIRES_PER_SECOND_PER_SHARD).toBe(250);
    const worst = planWorkers(evenly(DUE_INDEX_SHARDS), settings);
    expect(worst.slowestShardSeconds).toBeLessThan(20);
    // Each worker's time at the slower of its CPU's pace and its shards' partitions' pace: within its 60 s.
    for (const shards of worst.workers) {
      const load = shards.reduce((sum, shard) => sum + (evenly(DUE_INDEX_SHARDS)[shard] as number), 0);
      const pace = Math.min(settings.workerFiresPerSecond, shards.length * FIRES_PER_SECOND_PER_SHARD);
      expect(load / pace).toBeLessThan(20);
    }
    expect(planWorkers(evenly(16), settings).slowestShardSeconds).toBeGreaterThan(60);
  });
});
