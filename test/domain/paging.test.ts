import { describe, expect, it } from 'vitest';
import { freshForEachTest } from '#test/support/fresh-module';

/** Loaded anew in each test: the limits it computes on import then count as checked by the tests below. */
const paging = freshForEachTest(() => import('#lib/domain/paging'));

describe('pages', () => {
  it('answer the stored items with the cursors of the first and last, and say whether others lie before or after', () => {
    const stored = { items: [1, 2, 3], cursors: ['c1', 'c2', 'c3'], hasNextPage: true };
    expect(paging().toPage(stored, { first: 3 }, (n) => n * 10)).toEqual({
      items: [10, 20, 30],
      pageInfo: { startCursor: 'c1', endCursor: 'c3', hasNextPage: true, hasPreviousPage: false },
    });
    expect(paging().toPage(stored, { first: 3, after: 'c0' }, String).pageInfo.hasPreviousPage).toBe(true);
    expect(paging().toPage(paging().emptyPage<number>(), { first: 5 }, String)).toEqual({
      items: [],
      pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
    });
  });

  it('are filled within 1 MiB of JSON, each item counted as its DTO with its comma', () => {
    const window = paging().pageWindow<{ name: string }>({ first: 50 }, (item) => ({ n: item.name }));
    expect(window).toEqual({ first: 50, maxBytes: expect.any(Number), bytesOf: expect.any(Function) });
    // 1 MiB less the page around the items, with both cursors at their longest.
    expect(window.maxBytes).toBe(1024 * 1024 - 2 * 2048 - 256);
    expect(window.bytesOf({ name: 'é' })).toBe(Buffer.byteLength('{"n":"é"}') + 1);
    expect(paging().pageWindow({ first: 5, after: 'c9' }, String)).toMatchObject({ first: 5, after: 'c9' });
    expect('after' in paging().pageWindow({ first: 5 }, String)).toBe(false);
  });
});
