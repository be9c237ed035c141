import { describe, expect, it } from 'vitest';
import { chunkWithin, inParallel } from '#lib/concurrency';

const sizes = (chunks: number[][]) => chunks.map((items) => items.reduce((sum, size) => sum + size, 0));

describe('chunkWithin', () => {
  it('splits by count when the bytes allow', () => {
    const items = Array.from({ length: 7 }, () => 1);
    expect(chunkWithin(items, 3, 1000, (size) => size).map((c) => c.length)).toEqual([3, 3, 1]);
  });

  it('splits by bytes before the count is reached, never past the bytes', () => {
    const items = [40, 40, 30, 50, 10, 100, 1];
    const chunks = chunkWithin(items, 50, 100, (size) => size);
    expect(chunks).toEqual([[40, 40], [30, 50, 10], [100], [1]]);
    expect(Math.max(...sizes(chunks))).toBeLessThanOrEqual(100);
    expect(chunks.flat()).toEqual(items);
  });

  it('puts an item over the bytes alone, and keeps an empty input empty', () => {
    expect(chunkWithin([5, 300, 5], 10, 100, (size) => size)).toEqual([[5], [300], [5]]);
    expect(chunkWithin([], 10, 100, (size: number) => size)).toEqual([]);
  });
});

describe('inParallel', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps results in input order with at most `concurrency` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await inParallel([5, 1, 4, 2, 3], 2, async (value) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      for (let i = 0; i < value; i++) await tick();
      inFlight -= 1;
      return value * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('starts no input after a failure, and throws it once the calls in flight have ended', async () => {
    const started: number[] = [];
    const ended: number[] = [];
    const failure = new Error('refused');
    const run = inParallel([1, 2, 3, 4, 5], 2, async (value) => {
      started.push(value);
      await tick();
      if (value === 1) throw failure;
      for (let i = 0; i < 3; i++) await tick();
      ended.push(value);
    });
    await expect(run).rejects.toBe(failure);
    expect(started).toEqual([1, 2]);
    expect(ended).toEqual([2]);
  });
});
