import type * as z from 'zod/mini';
import type { Item } from '#lib/store/dynamo/items';

/**
 * A stored item that does not have its entity's shape: a fault of whatever wrote it, never of the
 * request that read it, so it is an internal error. The message names the entity, the item's key and
 * the field; free-text key parts are elided (they can be e-mail addresses, and this message is logged),
 * and no stored value is repeated.
 */
export class MalformedItemError extends Error {
  readonly entity: string;
  readonly field: string;

  constructor(entity: string, key: string, field: string, problem: string) {
    super(`Stored ${entity} item ${key} is malformed: ${field || '(item)'} ${problem}`);
    this.name = 'MalformedItemError';
    this.entity = entity;
    this.field = field;
  }
}

/** Key parts that are fixed words or ids stay; any other part is elided. */
const keyPart = (part: string) => (/^(?:[A-Z_]+|\d+)$/.test(part) ? part : '…');
const describeKey = (value: unknown) =>
  typeof value === 'string' ? value.split('#').map(keyPart).join('#') : '?';

/** `item`'s key as the error names it, e.g. `USER#12 / USER`. */
export const itemKey = (item: { pk?: unknown; sk?: unknown }) =>
  `${describeKey(item.pk)} / ${describeKey(item.sk)}`;

/** What is wrong, from the issue's code (zod/mini carries no messages unless a locale is loaded). */
function problemOf(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'is invalid';
  if (issue.code === 'invalid_type')
    return issue.input === undefined
      ? `is missing (type ${issue.expected})`
      : `is not of type ${issue.expected}`;
  if (issue.code === 'invalid_value' || issue.code === 'invalid_union') return 'is not an allowed value';
  return `fails its check (${issue.code})`;
}

/**
 * A stored shape, declared as the function that builds its schema. checkItem builds it on
 * the first item it checks and keeps it: a zod schema built when its module loads would stay in
 * every bundle that imports the module, and be built on every cold start, whether or not the
 * function ever reads that entity.
 */
export type StoredShape<S extends z.ZodMiniType = z.ZodMiniType> = () => S;

const built = new WeakMap<StoredShape, z.ZodMiniType>();

/** The schema `shape` builds, built once. */
export function schemaOf<F extends StoredShape>(shape: F): ReturnType<F> {
  let schema = built.get(shape);
  if (!schema) {
    schema = shape();
    built.set(shape, schema);
  }
  // The map holds, for each shape, the schema that shape built.
  return schema as ReturnType<F>;
}

/** Checks `item` against its entity's stored shape (one schema parse: this runs on every read). */
export function checkItem<F extends StoredShape>(
  entity: string,
  shape: F,
  item: Item,
  /** For an item read without its key (an update's returned attributes). */
  key: { pk?: unknown; sk?: unknown } = item,
): z.output<ReturnType<F>> {
  const result = schemaOf(shape).safeParse(item, { reportInput: true });
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw new MalformedItemError(entity, itemKey(key), issue?.path.join('.') ?? '', problemOf(issue));
}

/** A JSON text attribute, parsed; text that is not JSON is a malformed item like any other. */
export function parseJsonAttribute(entity: string, item: Item, attribute: string): unknown {
  try {
    return JSON.parse(String(item[attribute]));
  } catch {
    throw new MalformedItemError(entity, itemKey(item), attribute, 'is not JSON text');
  }
}
