import { describe, expect, it } from 'vitest';
import {
  FIRES_PER_SECOND_PER_SHARD,
  planHandOn,
  planWorkers,
  workerFiresPerSecond,
} from '#lib/domain/dispatch/dispatch-fanout';
import { DUE_INDEX_SHARDS, dueShard } from '#lib/store/dynamo/keys';
import { simulateMinute } from '#test/support/dispatch-timeline';

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

  it('shares the shards evenly among as few workers as their capacity allows, each worker’s shards in order', () => {
    // 5 fires a second for 2 seconds: 10 entries a worker; 20 due make two workers of 10.
    const plan = planWorkers([3, 8, 0, 2, 7], { workerFiresPerSecond: 5, workerSeconds: 2 });
    expect(plan.workers).toEqual([
      [1, 3],
      [0, 4],
    ]);
    expect(plan.slowestShardSeconds).toBe(8 / FIRES_PER_SECOND_PER_SHARD);
    // Three shards of 5 need two workers; a shard over a worker's capacity has one of its own.
    expect(planWorkers([5, 5, 5], { workerFiresPerSecond: 5, workerSeconds: 2 }).workers).toEqual([
      [0, 2],
      [1],
    ]);
    expect(planWorkers([30, 1], { workerFiresPerSecond: 5, workerSeconds: 2 }).workers).toEqual([[0], [1]]);
  });

  it('plans 10,001 due on consecutive ids as two workers of about 5,000, not 7,994 and 2,007', () => {
    const due = new Array<number>(DUE_INDEX_SHARDS).fill(0);
    for (let id = 500_000; id <= 510_000; id++) due[dueShard(1, id)] = (due[dueShard(1, id)] ?? 0) + 1;
    const loads = planWorkers(due, settings).workers.map((shards) =>
      shards.reduce((sum, shard) => sum + (due[shard] ?? 0), 0),
    );
    expect(loads).toHaveLength(2);
    for (const load of loads) expect(Math.abs(load - 10_001 / 2)).toBeLessThan(200);
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

describe('a worker handing on what it would not fire in time', () => {
  const remaining = new Map([
    [0, 300],
    [1, 200],
    [2, 100],
    [3, 0],
  ]);

  it('keeps the shards it fires in the time left at the pace it measured, and hands the others on', () => {
    // 100 done in 2 s: 50 a second; 8 s left: 400 to keep.
    const plan = planHandOn(remaining, { done: 100, seconds: 2 }, 8);
    expect(plan.keep).toEqual([0, 2]);
    // A continuation fires 50 a second for the 6 s left once it has started: 300.
    expect(plan.continuations).toEqual([[1]]);
  });

  it('keeps everything at a pace that fires it in time, and shares a slow minute among continuations', () => {
    expect(planHandOn(remaining, { done: 1_000, seconds: 1 }, 30)).toEqual({
      keep: [0, 1, 2],
      continuations: [],
    });
    // 10 a second with 12 s left: 120 fit, no shard does; it keeps the largest, and continuations of
    // 100 each (10 s once started) take the others.
    const slow = planHandOn(remaining, { done: 10, seconds: 1 }, 12);
    expect(slow.keep).toEqual([0]);
    expect(slow.continuations).toEqual([[1], [2]]);
    // A shard it cannot fire in time either way stays with it: handing it on would only start it again.
    expect(planHandOn(new Map([[5, 1_000]]), { done: 10, seconds: 1 }, 12)).toEqual({
      keep: [5],
      continuations: [],
    });
  });
});

describe('the due-index shard of a notification', () => {
  const fullest = (ids: readonly (readonly [number, number])[]) => {
    const counts = new Array<number>(DUE_INDEX_SHARDS).fill(0);
    for (const [deployment, id] of ids)
      counts[dueShard(deployment, id)] = (counts[dueShard(deployment, id)] ?? 0) + 1;
    return Math.max(...counts) / (ids.length / DUE_INDEX_SHARDS);
  };
  const run = (deployment: number, first: number, count: number, step = 1) =>
    Array.from({ length: count }, (_, i) => [deployment, first + i * step] as const);

  it('spreads 10,000 due within 1.25× of the mean shard, however the ids run', () => {
    expect(fullest(run(1, 500_000, 10_001))).toBeLessThan(1.05);
    expect(fullest(run(7, 9_000, 10_000))).toBeLessThan(1.05);
    for (const step of [2, 3, 7, 10, 64, 100]) expect(fullest(run(1, 1_000, 10_000, step))).toBeLessThan(1.1);
    expect(fullest(Array.from({ length: 10 }, (_, d) => run(d + 1, d * 50_000, 1_000)).flat())).toBeLessThan(
      1.1,
    );
    expect(fullest(run(3, 2 ** 40, 10_000))).toBeLessThan(1.05);
    // Ids drawn at random from a million, in 50 deployments: a hash's spread (1.18 for this draw).
    let seed = 42;
    const draw = () => {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      return 1 + Math.floor((seed / 2 ** 32) * 1_000_000);
    };
    const drawn = new Set<number>();
    while (drawn.size < 10_000) drawn.add(draw());
    expect(fullest([...drawn].map((id) => [1 + (id % 50), id] as const))).toBeLessThan(1.25);
    expect(fullest(run(1, 1, 300_000))).toBeLessThan(1.01);
  });
});

describe('a busy minute on the modelled timeline, at the deployed pace figures', () => {
  const dueOf = (count: number) => {
    const due = new Array<number>(DUE_INDEX_SHARDS).fill(0);
    for (let id = 1; id <= count; id++) due[dueShard(1, id)] = (due[dueShard(1, id)] ?? 0) + 1;
    return due;
  };
  const deployed = { plannedPace: workerFiresPerSecond(32), plannedSeconds: 20, coordinatorAt: 1 };

  it('fires 10,000 due within the minute at the planned pace, and still at the pace the findings measured (48 a second)', () => {
    const planned = simulateMinute(dueOf(10_000), { ...deployed, workerPace: 400 });
    expect(planned).toMatchObject({ workers: 2, continuations: 0, inTime: 10_000, late: 0 });
    expect(planned.lastFireAt).toBeLessThan(20);
    const slow = simulateMinute(dueOf(10_000), { ...deployed, workerPace: 48 });
    expect(slow.continuations).toBeGreaterThan(0);
    expect(slow).toMatchObject({ inTime: 10_000, late: 0 });
    expect(slow.lastFireAt).toBeLessThanOrEqual(59);
  });

  it('fires 300,000 due within the minute at the planned pace, one shard per worker at its partition’s pace', () => {
    const planned = simulateMinute(dueOf(300_000), { ...deployed, workerPace: 400 });
    expect(planned).toMatchObject({ workers: 64, continuations: 0, inTime: 300_000, late: 0 });
    expect(planned.lastFireAt).toBeLessThan(25);
    // At 48 a second a worker cannot fire its one shard in time, and a shard is not split (its
    // partition's pace is one worker's): what it has not fired at its deadline goes on at once, late.
    const slow = simulateMinute(dueOf(300_000), { ...deployed, workerPace: 48 });
    expect(slow.inTime + slow.late).toBe(300_000);
    expect(slow.late).toBeGreaterThan(0);
  });
});
