import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config';
import type { PageRequest, StoredPage } from '#lib/domain/paging';
import type { NotificationRef } from '#lib/domain/recipients';
import { isRunKept, oldestKeptInstant } from '#lib/domain/retention';
import type { RunListRepository } from '#lib/domain/run-lists';
import { RUN_ID_PATTERN, runIdFloor } from '#lib/domain/runs';
import { ValidationError } from '#lib/errors';
import { documentClient, tableName } from '#lib/store/client';
import { decodeDelivery, decodeRun } from '#lib/store/codecs/runs';
import { getItem, type Item } from '#lib/store/items';
import { keys, RUN_PREFIX } from '#lib/store/keys';

/**
 * Keyset paging over the notification's partition. A cursor is base64url JSON `[list, position]`:
 * the list it was issued for and the sort key position of the page's last item. It is accepted only
 * for that list and only with a position of that list's shape, so a forged one can at worst start a
 * walk elsewhere in the caller's own list.
 */
function encodeCursor(list: string, position: string): string {
  return Buffer.from(JSON.stringify([list, position])).toString('base64url');
}

function decodeCursor(list: string, cursor: string, isPosition: (position: string) => boolean): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    decoded[0] !== list ||
    typeof decoded[1] !== 'string' ||
    !isPosition(decoded[1]) ||
    encodeCursor(list, decoded[1]) !== cursor
  ) {
    throw new ValidationError([{ path: 'after', message: 'is not a cursor of this list' }]);
  }
  return decoded[1];
}

/**
 * The items under `prefix`, from `from` on when given: a key range, so that what lies below it (runs
 * past their retention that TTL has not removed yet) is never read, and a page costs the same as
 * when they are gone.
 */
function prefixCondition(pk: string, prefix: string, from: string | undefined) {
  if (from === undefined) {
    return {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    };
  }
  // The first key past the prefix: the prefix with its last character incremented.
  const end = `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
  return {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :end',
    ExpressionAttributeValues: { ':pk': pk, ':from': from, ':end': end },
  };
}

/** One page of the items under `prefix`, plus one item more to tell whether a next page exists. */
async function partitionPage<T>(
  ref: NotificationRef,
  list: {
    id: string;
    prefix: string;
    newestFirst: boolean;
    isPosition: (position: string) => boolean;
    /** The lowest sort key listed, when not the prefix's first (runs: the oldest kept). */
    from?: string;
  },
  page: PageRequest,
  fromItem: (item: Item) => T,
): Promise<StoredPage<T>> {
  const { pk } = keys.notification(ref.deploymentId, ref.id);
  const after = page.after === undefined ? undefined : decodeCursor(list.id, page.after, list.isPosition);
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      ...prefixCondition(pk, list.prefix, list.from),
      ScanIndexForward: !list.newestFirst,
      Limit: page.first + 1,
      ...(after !== undefined && { ExclusiveStartKey: { pk, sk: `${list.prefix}${after}` } }),
    }),
  );
  const items = Items.slice(0, page.first);
  return {
    items: items.map(fromItem),
    cursors: items.map((item) => encodeCursor(list.id, String(item.sk).slice(list.prefix.length))),
    hasNextPage: Items.length > page.first,
  };
}

const isRecipientPosition = (position: string) => /^(USER|EMBED_USER)#.{1,600}$/s.test(position);

export const runListRepository: RunListRepository = {
  async notificationExists(ref) {
    return (await getItem(keys.notification(ref.deploymentId, ref.id))) !== undefined;
  },

  async runExists(ref) {
    // A run past its retention is gone, whether or not TTL has removed it yet.
    if (!isRunKept(ref.runId, Date.now(), config().runRetentionDays)) return false;
    return (await getItem(keys.run(ref.deploymentId, ref.id, ref.runId))) !== undefined;
  },

  runsPage(ref, page) {
    const list = {
      id: `runs/${ref.deploymentId}/${ref.id}`,
      prefix: RUN_PREFIX,
      newestFirst: true,
      isPosition: (position: string) => RUN_ID_PATTERN.test(position),
      from: `${RUN_PREFIX}${runIdFloor(oldestKeptInstant(Date.now(), config().runRetentionDays))}`,
    };
    return partitionPage(ref, list, page, decodeRun);
  },

  async deliveriesPage(ref, page) {
    // A run past its retention is gone, whether or not TTL has removed its deliveries yet.
    if (!isRunKept(ref.runId, Date.now(), config().runRetentionDays))
      return { items: [], cursors: [], hasNextPage: false };
    const list = {
      id: `deliveries/${ref.deploymentId}/${ref.id}/${ref.runId}`,
      prefix: keys.deliveryPrefix(ref.runId),
      newestFirst: false,
      isPosition: isRecipientPosition,
    };
    return partitionPage(ref, list, page, decodeDelivery);
  },
};
