import { describe, expect, it } from 'vitest';
import type { ValidationError } from '#lib/errors';
import { freshForEachTest } from '#test/support/fresh-module';

// Loaded in each test: the number patterns are built when the module loads.
const jsonText = freshForEachTest(() => import('#lib/http/json-text'));

/** The field problems a body is refused with, in the order they are reported. */
function problemsOf(text: string) {
  try {
    jsonText().parseJsonText(text);
  } catch (error) {
    // The module is loaded anew in each test: its errors are told apart by code, not class.
    expect(error).toMatchObject({ code: 'validation_failed' });
    return (error as ValidationError).problems;
  }
  throw new Error(`${text} was accepted`);
}

const twice = (path: string) => ({ path, message: 'is given more than once' });

describe('isExactNumber', () => {
  it.each([
    '0',
    '-0',
    '1',
    '-1',
    '0.1',
    '1e20',
    '1E+20',
    '1e-3',
    '1e-200',
    '-0.5e-7',
    '100',
    '1.50',
    '1050e-1',
    '9007199254740992',
    '123456789012345.6',
    '5e-324',
    '1.7976931348623157e308',
  ])('%s reads back exactly', (source) => {
    expect(jsonText().isExactNumber(source)).toBe(true);
  });

  it.each([
    '9007199254740993',
    '1e309',
    '-1e400',
    '1e-400',
    '0.1000000000000000055511151231257827',
    '12345678901234567890',
  ])('%s does not', (source) => {
    expect(jsonText().isExactNumber(source)).toBe(false);
  });

  it.each(['', '0x10', 'NaN', 'Infinity'])('%j is no decimal number, so it is not exact', (source) => {
    expect(jsonText().isExactNumber(source)).toBe(false);
  });
});

describe('parseJsonText', () => {
  it('keeps exact numbers without a closer look, and finds an inexact one behind a dot or an exponent', () => {
    expect(jsonText().parseJsonText('{"a":[1,2.5,"x"],"b":true}')).toEqual({ a: [1, 2.5, 'x'], b: true });
    expect(problemsOf('{"a":12345678.123456789}')).toEqual([
      { path: 'a', message: 'must be a finite number that a 64-bit float holds exactly' },
    ]);
    expect(problemsOf('[0,1e999]')).toEqual([
      { path: '1', message: 'must be a finite number that a 64-bit float holds exactly' },
    ]);
  });

  it('looks closer at numbers only, leaving the strings, objects and nulls beside them as they are', () => {
    const text = '{"big":1e3,"name":"1e3","nested":{"list":[1.5,null]}}';
    expect(jsonText().parseJsonText(text)).toEqual({ big: 1000, name: '1e3', nested: { list: [1.5, null] } });
  });

  it('parses a body that is a lone value, not an object or array', () => {
    expect(jsonText().parseJsonText('"a string"')).toBe('a string');
    expect(jsonText().parseJsonText('12')).toBe(12);
  });

  it('refuses text that is not JSON as malformed, not as invalid', () => {
    expect(() => jsonText().parseJsonText('{"a":')).toThrow(
      expect.objectContaining({ code: 'malformed_json' }),
    );
  });

  it('allows 32 levels and refuses one more, naming the first value too deep', () => {
    const { MAX_JSON_DEPTH, parseJsonText } = jsonText();
    expect(MAX_JSON_DEPTH).toBe(32);
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(problemsOf(`{"a":[7,${nested(MAX_JSON_DEPTH)}]}`)).toEqual([
      {
        path: ['a', 1, ...new Array(MAX_JSON_DEPTH - 2).fill(0)].join('.'),
        message: 'must not nest objects and arrays more than 32 levels deep',
      },
    ]);
  });

  it('counts only the objects and arrays that enclose a value, not those closed before it', () => {
    const siblings = `[${new Array(40).fill('{"a":[]}').join(',')}]`;
    expect(jsonText().parseJsonText(siblings)).toHaveLength(40);
    // Brackets inside strings, with escaped quotes, do not count.
    expect(() => jsonText().parseJsonText(`["\\"${'['.repeat(40)}"]`)).not.toThrow();
  });

  it('names a member given twice in one object by its path', () => {
    expect(problemsOf('{"list":[{"x":1},{"x":1,"y":[0,{"z":0,"z":1}]}]}')).toEqual([twice('list.1.y.1.z')]);
  });

  it('tells member names from string values and from names in other objects', () => {
    expect(jsonText().parseJsonText('{"a":"b","b":{"a":"a"},"c":["a","a"]}')).toMatchObject({ a: 'b' });
  });

  it('reads a member name with escapes as the name it stands for', () => {
    expect(problemsOf('{"\\u0062":1,"b":2}')).toEqual([twice('b')]);
  });

  it('names text and member names that are not well-formed Unicode, and __proto__ members', () => {
    expect(problemsOf('{"text":"\\ud800","object":{"\\udfff":1},"list":[{"__proto__":{}}]}')).toEqual([
      { path: 'list.0.__proto__', message: 'is not an accepted field name' },
      { path: 'object', message: 'has a key that is not valid Unicode text' },
      { path: 'text', message: 'must be valid Unicode text' },
    ]);
  });

  it('reports the problems of the body in the order of their paths', () => {
    const text = '{"c":"\\ud800","a":"\\ud800","b":[1,"\\ud800"]}';
    expect(problemsOf(text).map(({ path }) => path)).toEqual(['a', 'b.1', 'c']);
  });

  it('lists at most 100 problems, however many the body holds', () => {
    const many = new Array(150).fill(null);
    expect(problemsOf(`{${many.map(() => '"a":1').join(',')}}`)).toHaveLength(100);
    expect(problemsOf(`[${many.map(() => '"\\ud800"').join(',')}]`)).toHaveLength(100);
  });
});
