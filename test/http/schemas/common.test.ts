import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { freshForEachTest } from '#test/support/fresh-module';

// Loaded in each test: the shared schemas and parse options are built when the module loads.
const common = freshForEachTest(() => import('#lib/http/schemas/common'));

const shape = z.strictObject({ count: z.number(), name: z.optional(z.string()) });

describe('check', () => {
  it('names each problem by its path: a missing field, a wrong type, an unknown field', () => {
    const { check } = common();
    expect(check(shape, {}).problems).toEqual([{ path: 'count', message: 'is required' }]);
    expect(check(shape, { count: 'x', extra: 1 }, ['items', 3]).problems).toEqual([
      { path: 'items.3.count', message: 'Invalid input: expected number, received string' },
      { path: 'items.3.extra', message: 'is not a known field' },
    ]);
  });
});

describe('parseOrThrow', () => {
  it('hands back the parsed value, or refuses it naming every field at fault', () => {
    const { parseOrThrow } = common();
    expect(parseOrThrow(shape, { count: 1 })).toEqual({ count: 1 });
    expect(() => parseOrThrow(shape, { count: '1', name: 2 })).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        problems: [
          { path: 'count', message: 'Invalid input: expected number, received string' },
          { path: 'name', message: 'Invalid input: expected string, received number' },
        ],
      }),
    );
  });
});

describe('pathId', () => {
  it('reads the digits of a positive integer of at most 15 digits', () => {
    const { check, pathId } = common();
    expect(check(pathId, '7').value).toBe(7);
    expect(check(pathId, '999999999999999').value).toBe(999_999_999_999_999);
  });

  it.each(['0', '07', '-7', 'x7', '7x', '7 ', '1e3', '1234567890123456'])('refuses %j', (id) => {
    const { check, pathId } = common();
    expect(check(pathId, id).problems).toEqual([{ path: '', message: 'must be a positive integer' }]);
  });
});

describe('compactTextUpTo', () => {
  it('takes tabs and line breaks, and refuses the control characters JSON writes in six bytes', () => {
    const { check, compactTextUpTo } = common();
    expect(check(compactTextUpTo(10), 'a\tb\r\nc').problems).toEqual([]);
    expect(check(compactTextUpTo(10), 'a\u0001b').problems).toEqual([
      { path: '', message: 'must not contain control characters other than tab and line breaks' },
    ]);
  });
});

describe('output numbers', () => {
  it('describe ids as positive integers and counts as integers from zero', () => {
    const { check, countOutput, idOutput } = common();
    expect(check(idOutput(), 1).problems).toEqual([]);
    expect(check(idOutput(), 0).problems).not.toEqual([]);
    expect(check(countOutput(), 0).problems).toEqual([]);
    expect(check(countOutput(), 0.5).problems).not.toEqual([]);
  });
});
