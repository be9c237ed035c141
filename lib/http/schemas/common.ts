import * as z from 'zod/mini';
import { type FieldProblem, ValidationError } from '#lib/errors';
import { issueMessage } from '#lib/http/schemas/issue-messages';

// zod/mini ships without messages; ours are zod's English ones, word for word (lib/http/schemas/issue-messages.ts).
z.config({ localeError: issueMessage });

function problemsOf(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]): FieldProblem[] {
  return issues.flatMap((issue): FieldProblem[] => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'is not a known field' }));
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) {
      return [{ path: path.join('.'), message: 'is required' }];
    }
    return [{ path: path.join('.'), message: issue.message }];
  });
}

// Without reportInput zod leaves `issue.input` out, and every wrong type would read as "is required".
const reportInput = { reportInput: true };

/** Checks `value` against `schema`; on failure lists every problem, each with the path of its field. */
export function check<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  prefix: PropertyKey[] = [],
): { value: z.output<S>; problems: [] } | { value: undefined; problems: FieldProblem[] } {
  const result = schema.safeParse(value, reportInput);
  if (result.success) return { value: result.data, problems: [] };
  return { value: undefined, problems: problemsOf(result.error.issues, prefix) };
}

export function parseOrThrow<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, reportInput);
  if (!result.success) throw new ValidationError(problemsOf(result.error.issues, []));
  return result.data;
}

/** A whole number in [min, max], with a message that states the range. */
export const intBetween = (min: number, max: number) =>
  z
    .int(`must be a whole number from ${min} to ${max}`)
    .check(z.gte(min, `must be from ${min} to ${max}`), z.lte(max, `must be from ${min} to ${max}`));

/** A path id: positive integer digits, as API Gateway hands them over in a string. */
export const pathId = z.pipe(
  z.string().check(z.regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')),
  z.transform((digits: string) => Number(digits)),
);

/** Text of at most `max` characters. */
export const textUpTo = (max: number) =>
  z.string().check(z.maxLength(max, `must be at most ${max} characters`));

/** Control characters JSON writes as six bytes (`\u0001`); tab, line breaks, \b and \f take two. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const sixByteControlCharacter = /[\u0000-\u0007\u000b\u000e-\u001f]/;

/**
 * Text of at most `max` characters that takes at most 3 bytes a character as JSON (UTF-8), so that
 * stated counts and lengths of such text multiply out within a stated byte limit.
 */
export const compactTextUpTo = (max: number) =>
  textUpTo(max).check(
    z.refine(
      (value: string) => !sixByteControlCharacter.test(value),
      'must not contain control characters other than tab and line breaks',
    ),
  );

/** Text of at most `max` characters that is valid Unicode, for what ends up in keys and e-mails. */
export const wellFormedTextUpTo = (max: number) =>
  textUpTo(max).check(z.refine((value: string) => value.isWellFormed(), 'must be valid Unicode text'));

/** A list of at most `max` items. */
export const listUpTo = <T extends z.ZodMiniType>(max: number, item: T) =>
  z.array(item).check(z.maxLength(max, `must have at most ${max} items`));

/** Absent or null: for update fields where null has a meaning of its own. */
export const nullish = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

type WithoutNull<T> = { [K in keyof T]: Exclude<T[K], null> };

/**
 * An object whose optional fields may be sent as `null`, which means the same as leaving them out
 * (as the platform's clients send them): the description shows each as nullable, and the handler
 * sees the object without its null members.
 */
export const nullMeansOmitted = <S extends z.ZodMiniType<Record<string, unknown>>>(schema: S) =>
  z.pipe(
    schema,
    z.transform(
      (value: z.output<S>) =>
        Object.fromEntries(Object.entries(value).filter(([, member]) => member !== null)) as WithoutNull<
          z.output<S>
        >,
    ),
  );

/** An id the service answers with: a positive integer (so the description states its bound). */
/**
 * `true` when a schema answers every member of `T`, which `satisfies z.ZodMiniType<T>` does not check
 * (it checks that what the schema answers is a `T`): a recipient kind added to `T` fails the typecheck
 * where this is asserted, until the schema describes that kind too.
 */
export type DescribesAll<T, S extends z.ZodMiniType> = [T] extends [z.output<S>] ? true : false;

export const idOutput = () => z.int().check(z.gte(1));

/** A count the service answers with. */
export const countOutput = () => z.int().check(z.gte(0));
