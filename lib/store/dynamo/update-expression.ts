/**
 * UpdateItem and condition expressions from attribute names and values: the placeholders are made
 * here, one per name (so no name, reserved word or not, is written as it is) and one per value, and
 * only those the expression uses, since DynamoDB refuses a name or value the expression leaves unused. A path is an attribute's name, or a key
 * of a map below it as `map.key` (no attribute of the table has a dot in its name).
 */

interface Placeholders {
  name(path: string): string;
  value(value: unknown): string;
}

/** A part of an expression, written with the placeholders of the expression it ends up in. */
export type Term = (p: Placeholders) => string;

const operand = (p: Placeholders, value: unknown) =>
  typeof value === 'function' ? (value as Term)(p) : p.value(value);

export const compare =
  (path: string, operator: '=' | '<>' | '<' | '<=' | '>', value: unknown): Term =>
  (p) =>
    `${p.name(path)} ${operator} ${p.value(value)}`;
export const is = (path: string, value: unknown) => compare(path, '=', value);
export const exists: (path: string) => Term = (path) => (p) => `attribute_exists(${p.name(path)})`;
export const absent: (path: string) => Term = (path) => (p) => `attribute_not_exists(${p.name(path)})`;
const joined =
  (operator: string, terms: Term[]): Term =>
  (p) =>
    `(${terms.map((term) => term(p)).join(` ${operator} `)})`;
/** Any of the terms holds; `all` inside it: every one of them holds. */
export const either = (...terms: Term[]) => joined('OR', terms);
export const all = (...terms: Term[]) => joined('AND', terms);
/** A SET's value: the attribute's own while it has one, else `value`. */
export const ifAbsent =
  (path: string, value: unknown): Term =>
  (p) =>
    `if_not_exists(${p.name(path)}, ${operand(p, value)})`;
export const plus =
  (left: unknown, right: unknown): Term =>
  (p) =>
    `${operand(p, left)} + ${operand(p, right)}`;

export interface Changes {
  /** Path → value, or a Term (`ifAbsent`, `plus`). */
  set?: Record<string, unknown>;
  remove?: readonly string[];
  /** Path → number added (negative to take away). */
  add?: Record<string, number>;
  /** Terms that must all hold. */
  condition?: readonly Term[];
}

/** An expression's request parameters; a part with nothing in it is left out. */
function expressionOf({ set = {}, remove = [], add = {}, condition = [] }: Changes) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const placeholders = new Map<string, string>();
  const p: Placeholders = {
    name: (path) =>
      path
        .split('.')
        .map((name) => {
          const placeholder = placeholders.get(name) ?? `#n${placeholders.size}`;
          placeholders.set(name, placeholder);
          names[placeholder] = name;
          return placeholder;
        })
        .join('.'),
    value: (value) => {
      // The client drops an undefined value, and DynamoDB would refuse the expression that names it.
      if (value === undefined) throw new TypeError('An undefined value');
      const placeholder = `:v${Object.keys(values).length}`;
      values[placeholder] = value;
      return placeholder;
    },
  };
  const update = (
    [
      ['SET', Object.entries(set).map(([path, value]) => `${p.name(path)} = ${operand(p, value)}`)],
      ['REMOVE', remove.map(p.name)],
      ['ADD', Object.entries(add).map(([path, value]) => `${p.name(path)} ${p.value(value)}`)],
    ] as const
  )
    .flatMap(([keyword, parts]) => (parts.length > 0 ? `${keyword} ${parts.join(', ')}` : []))
    .join(' ');
  const conditions = condition.map((term) => term(p)).join(' AND ');
  return {
    ...(update && { UpdateExpression: update }),
    ...(conditions && { ConditionExpression: conditions }),
    ...(placeholders.size > 0 && { ExpressionAttributeNames: names }),
    ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
  };
}

/** An UpdateItem's expressions: at least one of set, remove and add has something in it. */
export function updateOf(changes: Changes) {
  const { UpdateExpression, ...rest } = expressionOf(changes);
  // Without one, an UpdateItem would write an item of its key alone.
  if (!UpdateExpression) throw new TypeError('An empty update');
  return { UpdateExpression, ...rest };
}

/** A ConditionCheck's or a Put's condition. */
export function conditionOf(...terms: Term[]) {
  const { ConditionExpression = '', ...rest } = expressionOf({ condition: terms });
  return { ConditionExpression, ...rest };
}
