import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { CURSOR_MAX_LENGTH } from '#lib/domain/paging';
import { check } from '#lib/http/schemas/common';
import { freshForEachTest } from '#test/support/fresh-module';

const schemas = freshForEachTest(() => import('#lib/http/schemas/paging'));
const query = (values: Record<string, string>) => check(schemas().pagingQuery, values);

describe('pagingQuery', () => {
  it('reads first as a number from 1 to 200, 100 when absent', () => {
    expect(query({}).value).toEqual({ first: 100 });
    expect(query({ first: '1' }).value).toEqual({ first: 1 });
    expect(query({ first: '200' }).value).toEqual({ first: 200 });
    expect(query({ first: '007' }).value).toEqual({ first: 7 });
  });

  it('refuses a page size out of range, saying the range', () => {
    for (const first of ['0', '201', '999']) {
      expect(query({ first }).problems).toEqual([{ path: 'first', message: 'must be from 1 to 200' }]);
    }
    for (const first of ['1000', '-1', 'ten', '']) {
      expect(query({ first }).problems).toEqual([
        { path: 'first', message: 'must be a whole number from 1 to 200' },
        { path: 'first', message: 'must be from 1 to 200' },
      ]);
    }
    for (const first of [' 5', '5 ', '+5', '1.5']) {
      expect(query({ first }).problems).toEqual([
        { path: 'first', message: 'must be a whole number from 1 to 200' },
      ]);
    }
  });

  it('takes a cursor of up to the cursor length, and no empty one', () => {
    expect(query({ after: 'c'.repeat(CURSOR_MAX_LENGTH) }).value).toEqual({
      first: 100,
      after: 'c'.repeat(CURSOR_MAX_LENGTH),
    });
    expect(query({ after: 'c'.repeat(CURSOR_MAX_LENGTH + 1) }).problems).toEqual([
      { path: 'after', message: 'is not a cursor of this list' },
    ]);
    expect(query({ after: '' }).problems.map((problem) => problem.path)).toEqual(['after']);
  });

  it('refuses other query parameters', () => {
    expect(query({ last: '5' }).problems).toEqual([{ path: 'last', message: 'is not a known field' }]);
  });
});

describe('pageOf', () => {
  const pageInfo = { startCursor: 'a', endCursor: null, hasNextPage: false, hasPreviousPage: true };

  it('describes a page as its items and where it lies in the list', () => {
    const page = schemas().pageOf(z.number());
    expect(check(page, { items: [1, 2], pageInfo }).problems).toEqual([]);
    expect(check(page, { items: ['x'], pageInfo }).problems.map((problem) => problem.path)).toEqual([
      'items.0',
    ]);
    expect(
      check(page, { items: [], pageInfo: { startCursor: 1, endCursor: 'b' } }).problems.map(
        (problem) => problem.path,
      ),
    ).toEqual(['pageInfo.startCursor', 'pageInfo.hasNextPage', 'pageInfo.hasPreviousPage']);
  });
});
