import * as z from 'zod/mini';
import { checkItem } from '#lib/store/codecs/stored-item';
import type { Item } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';

/** Items read for their key alone: a keys-only Query's, a BatchGet's answer told apart by its key. */

const keyItem = () => z.looseObject({ pk: z.string(), sk: z.string() });

/** An item's key (a keys-only read's whole item). */
export const decodeKey = (item: Item): Key => {
  const { pk, sk } = checkItem('item', keyItem, item);
  return { pk, sk };
};
