import { describe, expect, it } from 'vitest';
import { chunkWithin } from '#lib/concurrency';

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
