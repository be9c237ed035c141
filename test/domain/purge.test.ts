import { describe, expect, it } from 'vitest';
import { type PendingPurge, type PurgeStore, purgePass, purgeSummaryLine } from '#lib/domain/deletion/purge';

/** Partitions of deleted notifications held in memory as item counts, with their tombstones. */
function storeOf(partitions: { purge: PendingPurge; items: number; fails?: boolean; live?: boolean }[]) {
  const items = new Map(partitions.map((p) => [p.purge.id, p.items]));
  const finished: number[] = [];
  const limits: number[] = [];
  const store: PurgeStore = {
    async pending(limit) {
      limits.push(limit);
      return partitions.map((p) => p.purge).slice(0, limit);
    },
    async notificationExists(ref) {
      return partitions.find((p) => p.purge.id === ref.id)?.live === true;
    },
    async deleteSome(ref, limit) {
      if (partitions.find((p) => p.purge.id === ref.id)?.fails) throw new Error('throttled');
      const left = items.get(ref.id) ?? 0;
      const deleted = Math.min(left, limit);
      items.set(ref.id, left - deleted);
      return deleted;
    },
    async finish(purge) {
      finished.push(purge.id);
    },
  };
  return { store, items, finished, limits };
}

const now = Date.UTC(2026, 10, 24, 12);
const purge = (id: number, sweepAfter: number): PendingPurge => ({
  deploymentId: 7,
  id,
  deletedAt: now - 60_000,
  sweepAfter,
});

describe('purgePass', () => {
  it('empties each partition in steps and removes the tombstone once the grace is over', async () => {
    const { store, items, finished } = storeOf([
      { purge: purge(1, now - 1), items: 2_500 },
      { purge: purge(2, now), items: 0 },
    ]);
    expect(await purgePass(store, { now })).toEqual({
      pending: 2,
      deleted: 2_500,
      finished: 2,
      waiting: 0,
      unfinished: 0,
      failed: 0,
      recreated: 0,
    });
    expect(items.get(1)).toBe(0);
    expect(finished.sort()).toEqual([1, 2]);
  });

  it('keeps the tombstone of an empty partition while a racing writer may still write into it', async () => {
    const { store, finished } = storeOf([{ purge: purge(1, now + 60_000), items: 10 }]);
    expect(await purgePass(store, { now })).toMatchObject({ deleted: 10, finished: 0, waiting: 1 });
    expect(finished).toEqual([]);
  });

  it('never touches a notification that exists under the id again: it gives the purge up, deleting nothing', async () => {
    const { store, items, finished } = storeOf([
      { purge: purge(1, now - 1), items: 40, live: true },
      { purge: purge(2, now - 1), items: 40 },
    ]);
    expect(await purgePass(store, { now })).toMatchObject({ deleted: 40, finished: 1, recreated: 1 });
    expect(items.get(1)).toBe(40);
    expect(finished.sort()).toEqual([1, 2]);
  });

  it('takes its step size, pass size and concurrency from the options', async () => {
    const { store, limits } = storeOf([
      { purge: purge(1, now), items: 5 },
      { purge: purge(2, now), items: 5 },
      { purge: purge(3, now), items: 5 },
    ]);
    const steps: number[] = [];
    const inFlight = { now: 0, most: 0 };
    const counting: PurgeStore = {
      ...store,
      deleteSome: async (ref, limit) => {
        steps.push(limit);
        inFlight.most = Math.max(inFlight.most, ++inFlight.now);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight.now--;
        return store.deleteSome(ref, limit);
      },
    };
    const summary = await purgePass(counting, { now, itemsPerStep: 2, purgesPerPass: 2, concurrency: 1 });
    expect(inFlight.most).toBe(1);
    expect(limits).toEqual([2]);
    expect(summary).toMatchObject({ pending: 2, deleted: 10, finished: 2 });
    expect(new Set(steps)).toEqual(new Set([2]));
    expect(steps).toHaveLength(8);
  });

  it('reads 100 pending purges and deletes 1,000 items a step by default', async () => {
    const { store, limits } = storeOf([{ purge: purge(1, now), items: 1_500 }]);
    const steps: number[] = [];
    await purgePass(
      {
        ...store,
        deleteSome: async (ref, limit) => {
          steps.push(limit);
          return store.deleteSome(ref, limit);
        },
      },
      { now },
    );
    expect(limits).toEqual([100]);
    expect(steps).toEqual([1_000, 1_000, 1_000]);
  });

  it('starts no step with five seconds or less left, and leaves the purge for a later pass', async () => {
    const { store, items } = storeOf([{ purge: purge(1, now), items: 3_000 }]);
    let left = 7_000;
    const summary = await purgePass(store, {
      now,
      deadline: {
        remainingMs: () => {
          left -= 1_000;
          return left;
        },
      },
    });
    // 6,000 then 5,000 ms left: one step only.
    expect(summary).toMatchObject({ deleted: 1_000, unfinished: 1, finished: 0 });
    expect(items.get(1)).toBe(2_000);
  });

  it('counts a failed purge, reports it, and goes on with the others', async () => {
    const { store, finished } = storeOf([
      { purge: purge(1, now), items: 5, fails: true },
      { purge: purge(2, now), items: 5 },
    ]);
    const errors: [string, number][] = [];
    const summary = await purgePass(store, { now, concurrency: 1 }, (error, failed) =>
      errors.push([(error as Error).message, failed.id]),
    );
    expect(summary).toMatchObject({ pending: 2, failed: 1, finished: 1 });
    expect(errors).toEqual([['throttled', 1]]);
    expect(finished).toEqual([2]);
  });

  it('does nothing with nothing pending', async () => {
    expect(await purgePass(storeOf([]).store, { now })).toEqual({
      pending: 0,
      deleted: 0,
      finished: 0,
      waiting: 0,
      unfinished: 0,
      failed: 0,
      recreated: 0,
    });
  });
});

describe('purgeSummaryLine', () => {
  it('reads as one line with every count under its name', () => {
    expect(
      purgeSummaryLine(now, {
        pending: 7,
        deleted: 6,
        finished: 5,
        waiting: 4,
        unfinished: 3,
        failed: 2,
        recreated: 1,
      }),
    ).toBe(
      'purge 2026-11-24T12:00:00.000Z: 7 pending, 6 items deleted, 5 finished, 4 waiting, 3 unfinished, 2 failed, 1 recreated',
    );
  });
});
