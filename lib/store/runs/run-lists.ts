import { config } from '#lib/config';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import { isRunKept, oldestKeptInstant } from '#lib/domain/runs/retention';
import type { DeliveryListing, RunListing } from '#lib/domain/runs/run-lists';
import { RUN_ID_PATTERN, runIdFloor } from '#lib/domain/runs/runs';
import { decodeDelivery, decodeRun } from '#lib/store/codecs/runs';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import { RUN_PREFIX } from '#lib/store/dynamo/keys';
import { type ListSource, readPage } from '#lib/store/dynamo/paging';

/**
 * The runs and deliveries of a notification live in its partition, each kind under a sort key
 * prefix: a list is the part of the partition under its prefix.
 */
function partitionSource(
  ref: NotificationRef,
  list: Pick<ListSource, 'id' | 'newestFirst' | 'isPosition'> & { prefix: string; from?: string },
): ListSource {
  return {
    id: list.id,
    partition: keys.notificationPartition(ref.deploymentId, ref.id),
    sortKey: { prefix: list.prefix, from: list.from },
    newestFirst: list.newestFirst,
    isPosition: list.isPosition,
  };
}

const decodedAll =
  <T>(decode: (item: Item) => T) =>
  (rows: Item[]) => ({ items: rows.map(decode), requests: 0 });

/**
 * A delivery's position: its id (32 hex digits); deliveries written before ids were keyed by their
 * recipient row's key less `RECIPIENT#`, within a sort key's 1024 bytes.
 */
const isDeliveryPosition = (position: string) =>
  /^[0-9a-f]{32}$/.test(position) || /^(USER|EMBED_USER)#.{1,1024}$/s.test(position);

const notificationExists = async (ref: NotificationRef) =>
  (await getItem(keys.notification(ref.deploymentId, ref.id))) !== undefined;

export const runListing: RunListing = {
  notificationExists,

  runsPage(ref, window) {
    const source = partitionSource(ref, {
      id: `runs/${ref.deploymentId}/${ref.id}`,
      prefix: RUN_PREFIX,
      newestFirst: true,
      isPosition: (position) => RUN_ID_PATTERN.test(position),
      // Only the runs kept: those past RUN_RETENTION_DAYS are below this key (run ids start with their instant).
      from: `${RUN_PREFIX}${runIdFloor(oldestKeptInstant(Date.now(), config().runRetentionDays))}`,
    });
    return readPage({ source, resolve: decodedAll(decodeRun) }, window);
  },
};

export const deliveryListing: DeliveryListing = {
  notificationExists,

  async runExists(ref) {
    // A run past its retention is gone, whether or not TTL has removed it yet.
    if (!isRunKept(ref.runId, Date.now(), config().runRetentionDays)) return false;
    return (await getItem(keys.run(ref.deploymentId, ref.id, ref.runId))) !== undefined;
  },

  async deliveriesPage(ref, window) {
    // A run past its retention is gone, whether or not TTL has removed its deliveries yet.
    if (!isRunKept(ref.runId, Date.now(), config().runRetentionDays))
      return { items: [], cursors: [], hasNextPage: false };
    const source = partitionSource(ref, {
      id: `deliveries/${ref.deploymentId}/${ref.id}/${ref.runId}`,
      prefix: keys.deliveryPrefix(ref.runId),
      newestFirst: false,
      isPosition: isDeliveryPosition,
    });
    return readPage({ source, resolve: decodedAll(decodeDelivery) }, window);
  },
};
