import type * as z from 'zod/mini';

/**
 * The message of a zod issue that its schema gives none: zod's English locale (`zod/locales` `en`),
 * word for word, so that a 400 reads as it always did. Ours because the locale names every format
 * zod knows (UUIDs, IBANs, credit cards...), 2.7 KB in every function; this knows the formats our
 * schemas check (URL, e-mail, ISO date-time, pattern) and names any other by its own name.
 */

/** A pattern's issue names its pattern instead (below). */
const formatNames: Record<string, string> = {
  email: 'email address',
  url: 'URL',
  datetime: 'ISO datetime',
  template_literal: 'input',
};
const sizeUnits: Record<string, string> = {
  string: 'characters',
  file: 'bytes',
  array: 'items',
  set: 'items',
  map: 'entries',
};

const primitive = (value: unknown) =>
  typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? `"${value}"` : `${value}`;

/** zod's name for the type of what was given: `array`, `null`, `NaN`, a class's name... */
function typeName(input: unknown): string {
  if (typeof input === 'number') return Number.isFinite(input) ? 'number' : String(input);
  if (typeof input !== 'object' || input === null) return input === null ? 'null' : typeof input;
  if (Array.isArray(input)) return 'array';
  const prototype = Object.getPrototypeOf(input);
  return prototype !== Object.prototype && 'constructor' in input && input.constructor
    ? input.constructor.name
    : 'object';
}

export function issueMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${issue.expected === 'nan' ? 'NaN' : issue.expected}, received ${typeName(issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `Invalid input: expected ${primitive(issue.values[0])}`
        : `Invalid option: expected one of ${issue.values.map(primitive).join('|')}`;
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const bound = big ? issue.maximum : issue.minimum;
      const comparison = issue.exact ? 'exactly ' : `${big ? '<' : '>'}${issue.inclusive ? '=' : ''}`;
      const origin = issue.origin ?? (big ? 'value' : undefined);
      const unit = sizeUnits[issue.origin ?? ''];
      return `Too ${big ? 'big' : 'small'}: expected ${origin} to ${unit ? 'have' : 'be'} ${comparison}${bound.toString()}${unit ? ` ${unit}` : ''}`;
    }
    case 'invalid_format':
      if (issue.format === 'starts_with') return `Invalid string: must start with "${issue.prefix}"`;
      if (issue.format === 'ends_with') return `Invalid string: must end with "${issue.suffix}"`;
      if (issue.format === 'includes') return `Invalid string: must include "${issue.includes}"`;
      if (issue.format === 'regex') return `Invalid string: must match pattern ${issue.pattern}`;
      return `Invalid ${formatNames[issue.format] ?? issue.format}`;
    case 'not_multiple_of':
      return `Invalid number: must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.map(primitive).join(', ')}`;
    case 'invalid_key':
      return `Invalid key in ${issue.origin}`;
    case 'invalid_union':
      if (Array.isArray(issue.options) && issue.options.length > 0)
        return `Invalid discriminator value. Expected ${issue.options.map((option) => `'${option}'`).join(' | ')}`;
      return issue.inclusive === false ? 'Invalid input: more than one option matched' : 'Invalid input';
    case 'invalid_element':
      return `Invalid value in ${issue.origin}`;
    default:
      return 'Invalid input';
  }
}
