import { describe, expect, it } from 'vitest';
import { CURSOR_MAX_LENGTH, emptyPage, PAGE_BODY_MAX_BYTES, pageWindow, toPage } from '#lib/domain/paging';

describe('pages', () => {
  it('answer the stored items with the cursors of the first and last, and say whether others lie before or after', () => {
    const stored = { items: [1, 2, 3], cursors: ['c1', 'c2', 'c3'], hasNextPage: true };
    expect(toPage(stored, { first: 3 }, (n) => n * 10)).toEqual({
      items: [10, 20, 30],
      pageInfo: { startCursor: 'c1', endCursor: 'c3', hasNextPage: true, hasPreviousPage: false },
    });
    expect(toPage(stored, { first: 3, after: 'c0' }, String).pageInfo.hasPreviousPage).toBe(true);
    expect(toPage(emptyPage<number>(), { first: 5 }, String)).toEqual({
      items: [],
      pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
    });
  });

  it('are filled within 1 MiB of JSON, each item counted as its DTO with its comma', () => {
    const window = pageWindow<{ name: string }>({ first: 50 }, (item) => ({ n: item.name }));
    expect(window).toEqual({ first: 50, maxBytes: expect.any(Number), bytesOf: expect.any(Function) });
    expect(window.maxBytes).toBe(PAGE_BODY_MAX_BYTES - 2 * CURSOR_MAX_LENGTH - 256);
    expect(window.bytesOf({ name: 'é' })).toBe(Buffer.byteLength('{"n":"é"}') + 1);
    expect(pageWindow({ first: 5, after: 'c9' }, String)).toMatchObject({ first: 5, after: 'c9' });
    expect('after' in pageWindow({ first: 5 }, String)).toBe(false);
  });
});
