import { describe, expect, it } from 'vitest';
import { en } from 'zod/locales';
import type * as z from 'zod/mini';
import { freshForEachTest } from '#test/support/fresh-module';

/** Our messages for issues without one of their own are zod's English locale's, word for word. */

// Loaded in each test: the tables of format names and size units are built when the module loads.
const messages = freshForEachTest(() => import('#lib/http/schemas/issue-messages'));
const english = en().localeError as (issue: z.core.$ZodRawIssue) => string;
const issues = [
  ...[
    undefined,
    null,
    'x',
    1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    true,
    10n,
    [],
    {},
    new Date(0),
    Object.create(null),
  ].map((input) => ({ code: 'invalid_type', expected: 'int', input })),
  { code: 'invalid_type', expected: 'nan', input: 'x' },
  { code: 'invalid_value', values: ['USER'], input: 'x' },
  { code: 'invalid_value', values: ['USER', 'EMBED_USER', 2, 3n, true], input: 'x' },
  ...['string', 'array', 'number', 'set', 'map', 'file', 'bigint', undefined].flatMap((origin) =>
    [{ inclusive: true }, { inclusive: false }, { exact: true, inclusive: true }].flatMap((bounds) => [
      { code: 'too_big', origin, maximum: 10, ...bounds, input: 'x' },
      { code: 'too_small', origin, minimum: 1, ...bounds, input: 'x' },
    ]),
  ),
  { code: 'too_big', origin: 'bigint', maximum: 5n, inclusive: true, input: 6n },
  // The formats our schemas check.
  ...['email', 'url', 'datetime', 'template_literal'].map((format) => ({
    code: 'invalid_format',
    format,
    input: 'x',
  })),
  { code: 'invalid_format', format: 'regex', pattern: '/^a$/', input: 'x' },
  { code: 'invalid_format', format: 'starts_with', prefix: 'sk-', input: 'x' },
  { code: 'invalid_format', format: 'ends_with', suffix: '.json', input: 'x' },
  { code: 'invalid_format', format: 'includes', includes: '@', input: 'x' },
  { code: 'not_multiple_of', divisor: 5, input: 7 },
  { code: 'unrecognized_keys', keys: ['extra'], input: {} },
  { code: 'unrecognized_keys', keys: ['one', 'two'], input: {} },
  { code: 'invalid_key', origin: 'record', issues: [], input: {} },
  { code: 'invalid_union', errors: [], input: 'x' },
  { code: 'invalid_union', errors: [], inclusive: false, input: 'x' },
  { code: 'invalid_union', errors: [], options: ['USER', 'SLACK'], input: 'x' },
  { code: 'invalid_union', errors: [], options: [], input: 'x' },
  { code: 'invalid_element', origin: 'map', key: 'k', issues: [], input: {} },
  { code: 'custom', input: 'x' },
] as z.core.$ZodRawIssue[];

describe('issue messages', () => {
  it.each(
    issues.map((issue) => [JSON.stringify(issue, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)), issue]),
  )('%s reads as in zod/locales en', (_, issue) => {
    expect(messages().issueMessage(issue)).toBe(english(issue));
  });
});
