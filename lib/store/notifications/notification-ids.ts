import { COUNTER_ENTITY, counterAttributes, decodeCounter } from '#lib/store/codecs/counters';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { updateItem } from '#lib/store/dynamo/items';
import { absent, compare, either } from '#lib/store/dynamo/update-expression';

/**
 * Notification ids come from one counter. Whoever writes notifications with ids of their own (the
 * fixture loader, the migration) first moves the counter past them, so a created id never lands on
 * a loaded one; the create's conditional put is the backstop should one still be taken.
 */

const SEQUENCE = 'notification';

/** The next id: one atomic ADD. */
export async function nextNotificationId(): Promise<number> {
  const Attributes = await updateItem(
    keys.counter(SEQUENCE),
    {
      set: { [counterAttributes.entity]: COUNTER_ENTITY },
      add: { [counterAttributes.value]: 1 },
    },
    'UPDATED_NEW',
  );
  return decodeCounter(Attributes, keys.counter(SEQUENCE));
}

/** Moves the counter to at least `id` (never back): ids handed out later are all above it. */
export async function reserveNotificationIdsThrough(id: number): Promise<void> {
  await conditionHeld(() =>
    updateItem(keys.counter(SEQUENCE), {
      set: { [counterAttributes.value]: id, [counterAttributes.entity]: COUNTER_ENTITY },
      condition: [either(absent(counterAttributes.value), compare(counterAttributes.value, '<', id))],
    }),
  );
}
