import { type FieldProblem, MalformedJsonError, ValidationError } from '#lib/errors';

/**
 * Reads a request body's JSON so that whatever is accepted can be stored and returned exactly as
 * given. JSON.parse alone would quietly turn `1e309` into Infinity (stored as null) and
 * `9007199254740993` into its neighbour, and a reviver recurses once per level (a deep body would
 * overflow the stack). So the text is scanned first, without recursion, for its depth and for
 * numbers that a 64-bit float cannot hold; values are checked only then. Every problem found is a
 * 400 naming its field.
 */

/** Objects and arrays inside one another, the body itself counting as the first level. */
export const MAX_JSON_DEPTH = 32;
/** More problems than this are not listed: the answer stays small whatever the body. */
const MAX_PROBLEMS = 100;

const decimal = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A decimal number as sign, significant digits and exponent; zero has no digits. */
function normalized(text: string): { negative: boolean; digits: string; exponent: number } | undefined {
  const match = decimal.exec(text);
  if (!match) return undefined;
  const fraction = match[3] ?? '';
  let digits = `${match[2]}${fraction}`.replace(/^0+/, '');
  let exponent = Number(match[4] ?? 0) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  exponent += digits.length - trimmed.length;
  digits = trimmed;
  return { negative: match[1] === '-' && digits !== '', digits, exponent: digits === '' ? 0 : exponent };
}

/** Whether the number written as `source` is exactly the value JavaScript reads from it (and writes back). */
export function isExactNumber(source: string): boolean {
  const value = Number(source);
  if (!Number.isFinite(value)) return false;
  const given = normalized(source);
  const kept = normalized(String(value));
  return (
    given !== undefined &&
    kept !== undefined &&
    given.negative === kept.negative &&
    given.digits === kept.digits &&
    given.exponent === kept.exponent
  );
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isNumberStart = (code: number) => code === 0x2d || (code >= 0x30 && code <= 0x39);
const isNumberPart = (code: number) =>
  (code >= 0x30 && code <= 0x39) ||
  code === 0x2e ||
  code === 0x2d ||
  code === 0x2b ||
  code === 0x65 ||
  code === 0x45;

/** One pass over the text: the deepest nesting, and whether every number is kept exactly. */
function scan(text: string): { depth: number; exactNumbers: boolean } {
  let depth = 0;
  let deepest = 0;
  let exactNumbers = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) i++;
      }
    } else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    } else if (isNumberStart(code)) {
      const start = i;
      while (i + 1 < text.length && isNumberPart(text.charCodeAt(i + 1))) i++;
      if (exactNumbers && !isExactNumber(text.slice(start, i + 1))) exactNumbers = false;
    }
  }
  return { depth: deepest, exactNumbers };
}

/** Stands in for a number that cannot be kept, so that the walk can name its field. */
const inexact = Symbol('inexact number');

const pathOf = (path: readonly (string | number)[]) => path.join('.');

/** Keys and strings that are not well-formed Unicode, `__proto__` keys and inexact numbers, each with its path. */
function valueProblems(root: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (pending.length > 0 && problems.length < MAX_PROBLEMS) {
    const { value, path } = pending.pop() as { value: unknown; path: (string | number)[] };
    if (value === inexact) {
      problems.push({
        path: pathOf(path),
        message:
          'is a number that cannot be kept exactly (it must be finite, and hold at most the precision of a 64-bit float)',
      });
    } else if (typeof value === 'string') {
      if (!value.isWellFormed()) problems.push({ path: pathOf(path), message: 'must be valid Unicode text' });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        pending.push({ value: item, path: [...path, i] });
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const at = [...path, key];
        if (!key.isWellFormed())
          problems.push({ path: pathOf(path), message: 'has a key that is not valid Unicode text' });
        else if (key === '__proto__')
          problems.push({ path: pathOf(at), message: 'is not an accepted field name' });
        else pending.push({ value: item, path: at });
      }
    }
  }
  return problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Parses a request body. Not JSON: `malformed_json`. JSON the service cannot keep exactly (nested
 * deeper than MAX_JSON_DEPTH, a number a 64-bit float does not hold, text that is not well-formed
 * Unicode, a `__proto__` key): `validation_failed` naming each field.
 */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    // Without a reviver V8 parses without recursion: any depth is safe here.
    value = JSON.parse(text);
  } catch {
    throw new MalformedJsonError();
  }
  const { depth, exactNumbers } = scan(text);
  if (depth > MAX_JSON_DEPTH) {
    throw new ValidationError([
      { path: '', message: `must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep` },
    ]);
  }
  // Depth is bounded by now, so the reviver's recursion is too; it runs only when a number needs naming.
  const checked = exactNumbers
    ? value
    : JSON.parse(text, (_key, parsed: unknown, context?: { source?: string }) =>
        typeof parsed === 'number' && context?.source !== undefined && !isExactNumber(context.source)
          ? inexact
          : parsed,
      );
  const problems = valueProblems(checked);
  if (problems.length > 0) throw new ValidationError(problems);
  return value;
}
