import { type FieldProblem, MalformedJsonError, ValidationError } from '#lib/errors';

/**
 * Reads a request body's JSON so that whatever is accepted can be stored and returned exactly as
 * given. JSON.parse alone would quietly turn `1e309` into Infinity (stored as null) and
 * `9007199254740993` into its neighbour, and a reviver recurses once per level (a deep body would
 * overflow the stack). So the text's depth is measured first, without recursion; only then, and
 * only when the text may hold a number a 64-bit float cannot, does a reviver read each number's
 * source. Every problem found is a 400 naming its field.
 */

/** Objects and arrays inside one another, the body itself counting as the first level. */
export const MAX_JSON_DEPTH = 32;
/** More problems than this are not listed: the answer stays small whatever the body. */
const MAX_PROBLEMS = 100;

const decimal = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A decimal number in one form for each value: sign, significant digits, exponent (`-12e-3`). */
function canonical(text: string): string | undefined {
  const match = decimal.exec(text);
  if (!match) return undefined;
  const fraction = match[3] ?? '';
  const unpadded = `${match[2]}${fraction}`.replace(/^0+/, '');
  const digits = unpadded.replace(/0+$/, '');
  if (digits === '') return '0';
  const exponent = Number(match[4] ?? 0) - fraction.length + unpadded.length - digits.length;
  return `${match[1]}${digits}e${exponent}`;
}

/** Whether the number written as `source` is exactly the value JavaScript reads from it (and writes back). */
export function isExactNumber(source: string): boolean {
  const value = Number(source);
  const given = canonical(source);
  return Number.isFinite(value) && given !== undefined && given === canonical(String(value));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/**
 * A decimal of at most 15 significant digits without an exponent always reads back exactly, so a
 * text without a digit before an `e` or 16 digits and dots in a row needs no closer look (the test
 * is conservative: it also matches inside strings, which only costs the closer look).
 */
const mayHoldInexactNumber = /\d[eE]|[\d.]{16}/;

/** Where the scan stands in one object or array: the member names seen so far, or the item's index. */
type Frame =
  | { kind: 'object'; names: Set<string>; name: string; expectsName: boolean }
  | { kind: 'array'; index: number };

const framePath = (stack: readonly Frame[]) =>
  stack.map((frame) => (frame.kind === 'object' ? frame.name : frame.index));

/**
 * What JSON.parse lets through unnoticed, found in one pass over text that parses, without
 * recursion: nesting deeper than MAX_JSON_DEPTH (named by the path of the first value too deep, so
 * the field at fault is known) and a member name given twice in one object (JSON.parse keeps the
 * last, so the value would be ambiguous).
 */
function structureProblems(text: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const stack: Frame[] = [];
  for (let i = 0; i < text.length && problems.length < MAX_PROBLEMS; i++) {
    const code = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (code === QUOTE) {
      const start = i + 1;
      let escaped = false;
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      if (top?.kind === 'object' && top.expectsName) {
        const raw = text.slice(start, i);
        // A JSON string literal parses to a string.
        const name: string = escaped ? JSON.parse(`"${raw}"`) : raw;
        top.expectsName = false;
        top.name = name;
        if (top.names.has(name)) {
          problems.push({ path: pathOf([...framePath(stack)]), message: 'is given more than once' });
        }
        top.names.add(name);
      }
    } else if (code === 0x7b || code === 0x5b) {
      if (stack.length === MAX_JSON_DEPTH) {
        problems.push({
          path: pathOf(framePath(stack)),
          message: `must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
        });
        break;
      }
      stack.push(
        code === 0x7b
          ? { kind: 'object', names: new Set(), name: '', expectsName: true }
          : { kind: 'array', index: 0 },
      );
    } else if (code === 0x7d || code === 0x5d) {
      stack.pop();
    } else if (code === 0x2c && top) {
      if (top.kind === 'object') top.expectsName = true;
      else top.index++;
    }
  }
  return problems;
}

/** Stands in for a number that cannot be kept, so that the walk can name its field. */
const inexact = Symbol('inexact number');

const pathOf = (path: readonly (string | number)[]) => path.join('.');

/** Keys and strings that are not well-formed Unicode, `__proto__` keys and inexact numbers, each with its path. */
function valueProblems(root: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  for (let next = pending.pop(); next && problems.length < MAX_PROBLEMS; next = pending.pop()) {
    const { value, path } = next;
    if (value === inexact) {
      problems.push({
        path: pathOf(path),
        message: 'must be a finite number that a 64-bit float holds exactly',
      });
    } else if (typeof value === 'string') {
      if (!value.isWellFormed()) problems.push({ path: pathOf(path), message: 'must be valid Unicode text' });
    } else if (value !== null && typeof value === 'object') {
      // An array's entries are its items, keyed by index.
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
 * deeper than MAX_JSON_DEPTH, a member name given twice in one object, a number a 64-bit float does
 * not hold, text that is not well-formed Unicode, a `__proto__` key): `validation_failed` naming
 * each field.
 */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    // Without a reviver V8 parses without recursion: any depth is safe here.
    value = JSON.parse(text);
  } catch {
    throw new MalformedJsonError();
  }
  const structure = structureProblems(text);
  if (structure.length > 0) throw new ValidationError(structure);
  // Depth is bounded by now, so the reviver's recursion is too; it runs only when a number needs naming.
  const checked = !mayHoldInexactNumber.test(text)
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
