import * as z from 'zod/mini';
import type { PendingPurge } from '#lib/domain/deletion/purge';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';

/**
 * A deleted notification's tombstone: its partition is still being emptied. In the `PURGES`
 * partition of gsi1, oldest delete first, so that a purge pass finds every pending purge with one
 * Query. `deletedAt` is ISO-8601 (readable in the console), `sweepAfter` epoch ms.
 */
export function encodePurge(purge: PendingPurge): Item {
  const deletedAt = new Date(purge.deletedAt).toISOString();
  return {
    ...keys.purge(purge.deploymentId, purge.id),
    entity: 'PURGE',
    deploymentId: purge.deploymentId,
    notificationId: purge.id,
    deletedAt,
    sweepAfter: purge.sweepAfter,
    ...indexKeys.purge(purge.deploymentId, purge.id, deletedAt),
  };
}

const purgeItem = () =>
  z.looseObject({
    deploymentId: z.int(),
    notificationId: z.int(),
    deletedAt: z.iso.datetime(),
    sweepAfter: z.int(),
  });

export function decodePurge(item: Item): PendingPurge {
  const stored = checkItem('purge', purgeItem, item);
  return {
    deploymentId: stored.deploymentId,
    id: stored.notificationId,
    deletedAt: Date.parse(stored.deletedAt),
    sweepAfter: stored.sweepAfter,
  };
}
