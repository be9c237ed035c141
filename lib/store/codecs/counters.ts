import * as z from 'zod/mini';
import { checkItem } from '#lib/store/codecs/stored-item';
import type { Item } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';

/**
 * An id sequence's counter: `value` is the highest id handed out. Counters are only ever written by
 * UpdateItem (an atomic ADD or a conditional SET), with these attribute names.
 */
export const counterAttributes = { value: 'value', entity: 'entity' } as const;
export const COUNTER_ENTITY = 'COUNTER';

const counterItem = () => z.looseObject({ value: z.optional(z.int().check(z.nonnegative())) });

/** The counter's value; a counter not yet written (or without a value) stands at 0. */
export const decodeCounter = (item: Item | undefined, key: Key): number =>
  item ? (checkItem('counter', counterItem, item, key).value ?? 0) : 0;
