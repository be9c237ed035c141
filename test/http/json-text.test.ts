import { describe, expect, it } from 'vitest';
import { isExactNumber, MAX_JSON_DEPTH, parseJsonText } from '#lib/http/json-text';

describe('isExactNumber', () => {
  it.each([
    '0',
    '-0',
    '1',
    '-1',
    '0.1',
    '1e20',
    '1E+20',
    '1e-200',
    '-0.5e-7',
    '100',
    '1.50',
    '9007199254740992',
    '123456789012345.6',
    '5e-324',
    '1.7976931348623157e308',
  ])('%s reads back exactly', (source) => {
    expect(isExactNumber(source)).toBe(true);
  });

  it.each([
    '9007199254740993',
    '1e309',
    '-1e400',
    '1e-400',
    '0.1000000000000000055511151231257827',
    '12345678901234567890',
  ])('%s does not', (source) => {
    expect(isExactNumber(source)).toBe(false);
  });
});

describe('parseJsonText', () => {
  it('keeps exact numbers without a closer look, and finds an inexact one behind a dot or an exponent', () => {
    expect(parseJsonText('{"a":[1,2.5,"x"],"b":true}')).toEqual({ a: [1, 2.5, 'x'], b: true });
    expect(() => parseJsonText('{"a":12345678.123456789}')).toThrow(/a/);
    expect(() => parseJsonText('[1e999]')).toThrow();
  });

  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH + 1))).toThrow(/levels deep/);
    // Brackets inside strings, with escaped quotes, do not count.
    expect(() => parseJsonText(`["\\"${'['.repeat(40)}"]`)).not.toThrow();
  });
});
