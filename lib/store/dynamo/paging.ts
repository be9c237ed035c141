import { emptyPage, type PageWindow, type StoredPage } from '#lib/domain/paging';
import { type CursorScope, cursorPosition, encodeCursor } from '#lib/store/dynamo/cursors';
import type { Item } from '#lib/store/dynamo/items';
import { type Key, type SecondaryIndex, tableKeySchema } from '#lib/store/dynamo/keys';
import { queryPage, type ReadPage, stringAttribute } from '#lib/store/dynamo/query';

/**
 * Keyset paging, the one mechanism of every list. A list is one partition of the table or of an
^ * index, read in sort key order. A cursor (cursors.ts) is base64url JSON `[list, position]`: the identity of the
 * list it was issued for and the sort key (less the list's prefix) of the page's last item. Nothing
 * secret is in it; instead a cursor is accepted only for the list it names, and its position only if
 * it has the shape that list's sort keys have. From those two the whole start key is rebuilt here,
 * so a forged cursor can at worst start a walk at another point of the caller's own list.
 *
 * A page holds at most `first` items and at most the window's bytes; it is read in rounds (a Query,
 * and for a list that joins its rows to other items, the join) until it is full, the list ends, or
 * PAGE_REQUESTS requests are spent. DynamoDB ends a Query at 1 MB of items read: such a Query only
 * ends a round, never the list.
 */

/** Where a list's items are and how its positions map to keys. */
export interface ListSource extends CursorScope {
  /** The index the list is a partition of; absent for the table itself. */
  index?: SecondaryIndex;
  /** The partition key's value. */
  partition: string;
  /**
   * `prefix`: the list is the part of the partition whose sort keys start with it. `from` (with a
   * prefix): only sort keys from it on, a key range, so what lies below (runs past their retention
   * that TTL has not removed yet) is never read and costs nothing. A `from` that moves with time may
   * pass a cursor's position; that cursor still works (`resumeAfter`).
   */
  sortKey?: { prefix: string; from?: string };
  newestFirst: boolean;
  /** The table key of the item at `position`: the start key of an index query needs it. */
  tableKeyAt?: (position: string) => Key;
}

/** The items of some rows, in their order, and the DynamoDB requests it took to find them. */
export interface Resolved<T> {
  /** undefined for a row that stands for no item any more (its notification or user deleted meanwhile). */
  items: (T | undefined)[];
  requests: number;
}

/** A list: its source, and how its rows become items. */
export interface ListReader<T> {
  source: ListSource;
  resolve: (rows: Item[]) => Resolved<T> | Promise<Resolved<T>>;
  /**
   * For a join whose items may be large (notifications): the rows whose items are read at first;
   * then as many as the bytes left are likely to hold. It never reads a page's worth of 400 KB items
   * to answer three of them. Without it every row read is resolved at once.
   */
  firstSlice?: number;
  /**
   * Rows may stand for items the list leaves out (its join applies a filter no index key serves): a
   * page then ends after PAGE_REQUESTS requests whatever it holds, even nothing, its end cursor at the
   * last row read, so that a page costs the same however few of the rows pass.
   */
  sparse?: boolean;
}

/**
 * DynamoDB requests one page may take before it ends short. Past it a page ends with what it holds
 * but one, that one proving that items remain; a page with fewer than two items reads on.
 */
const PAGE_REQUESTS = 4;
/**
 * Rows a sparse list's Query reads at least: many may not pass, and a page's requests are few. As many
 * as two first slices of a join resolve (lib/store/notifications/notification-lists.ts), no more: a
 * recipient row the Query reads may weigh 32 KB.
 */
const SPARSE_QUERY_ROWS = 16;

const prefixOf = (source: ListSource) => source.sortKey?.prefix ?? '';

/** The names of the list's key attributes: the index's, or the table's. */
export const keyNamesOf = (source: Pick<ListSource, 'index'>) =>
  source.index ?? { partitionKey: tableKeySchema.partitionKey, sortKey: tableKeySchema.sortKey };

/** The position of a row read from the list. */
const positionOfRow = (source: ListSource, row: Item) =>
  (stringAttribute(row, keyNamesOf(source).sortKey) ?? '').slice(prefixOf(source).length);

function startKeyAt(source: ListSource, position: string): Record<string, string> {
  const names = keyNamesOf(source);
  return {
    [names.partitionKey]: source.partition,
    [names.sortKey]: `${prefixOf(source)}${position}`,
    ...source.tableKeyAt?.(position),
  };
}

/** Whether sort key `a` sorts before `b` as DynamoDB orders them: by their UTF-8 bytes. */
const sortsBefore = (a: string, b: string) =>
  Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')) < 0;

/**
 * Where a walk goes on after `position`: the start key of its next Query, or `end` when nothing can
 * follow. A range that moves with time (`from`: runs past their retention) may have moved past the
 * position since its cursor was issued, and DynamoDB refuses a start key outside the key condition.
 * The walk then goes on with the next item still in the range: none for a newest-first walk (all that
 * follows is older still), the range's first for an oldest-first one.
 */
function resumeAfter(source: ListSource, position: string | undefined): { start?: Item } | 'end' {
  if (position === undefined) return {};
  const from = source.sortKey?.from;
  if (from !== undefined && sortsBefore(`${prefixOf(source)}${position}`, from)) {
    return source.newestFirst ? 'end' : {};
  }
  return { start: startKeyAt(source, position) };
}

/** The first sort key past every key that starts with `prefix`: its last character incremented. */
const pastPrefix = (prefix: string) =>
  `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;

function sortKeyCondition(prefix: string | undefined, from: string | undefined): string {
  if (prefix === undefined) return '#pk = :pk';
  return from === undefined
    ? '#pk = :pk AND begins_with(#sk, :prefix)'
    : '#pk = :pk AND #sk BETWEEN :from AND :end';
}

/** One Query of the list: at most `limit` rows, and at most what DynamoDB reads in one call (1 MB). */
function queryList(source: ListSource, limit: number, start?: Item): Promise<ReadPage> {
  const { prefix, from } = source.sortKey ?? {};
  const names = keyNamesOf(source);
  return queryPage(
    {
      IndexName: source.index?.name,
      KeyConditionExpression: sortKeyCondition(prefix, from),
      ExpressionAttributeNames: {
        '#pk': names.partitionKey,
        ...(prefix !== undefined && { '#sk': names.sortKey }),
      },
      ExpressionAttributeValues: {
        ':pk': source.partition,
        ...(prefix !== undefined && from === undefined && { ':prefix': prefix }),
        ...(prefix !== undefined && from !== undefined && { ':from': from, ':end': pastPrefix(prefix) }),
      },
      ScanIndexForward: !source.newestFirst,
      Limit: limit,
    },
    start,
  );
}

/**
 * One page of the list. It ends when it holds `first` items and one more was found, when the next
 * item would pass the window's bytes, when the list ends, or after PAGE_REQUESTS requests (then without
 * its last item, which proves that more follow). So `hasNextPage` is true exactly when an item
 * follows, every item is reached by following `endCursor`, and no page is empty while items remain.
 */
export async function readPage<T>(reader: ListReader<T>, window: PageWindow<T>): Promise<StoredPage<T>> {
  const { source } = reader;
  const resumed = resumeAfter(source, cursorPosition(source, window.after));
  if (resumed === 'end') return emptyPage();
  const kept: { item: T; position: string }[] = [];
  let bytes = 0;
  let largest = 0;
  let requests = 0;
  let start = resumed.start;
  let exhausted = false;
  let pending: Item[] = [];
  /** The position of the last row resolved, kept or not: where a sparse list's page may end. */
  let lastRead: string | undefined;
  const page = (hasNextPage: boolean, count = kept.length) => ({
    items: kept.slice(0, count).map(({ item }) => item),
    cursors: kept.slice(0, count).map(({ position }) => encodeCursor(source, position)),
    hasNextPage,
  });
  // The rows whose items the bytes left are likely to hold, plus one to tell whether another fits.
  const likelyToFit = () =>
    largest === 0 ? Number.POSITIVE_INFINITY : Math.floor((window.maxBytes - bytes) / largest) + 1;
  const sliceOf = (rows: number) =>
    reader.firstSlice === undefined
      ? rows
      : Math.max(1, Math.min(largest === 0 ? reader.firstSlice : likelyToFit(), rows));
  for (;;) {
    if (pending.length === 0) {
      if (exhausted) return page(false);
      const rowsWanted = reader.sparse
        ? Math.max(window.first + 1 - kept.length, SPARSE_QUERY_ROWS)
        : window.first + 1 - kept.length;
      const wanted = Math.max(1, Math.min(rowsWanted, likelyToFit()));
      const round = await queryList(source, wanted, start);
      requests++;
      pending = round.items;
      start = round.next;
      exhausted = round.next === undefined;
    } else {
      const rows = pending.splice(0, sliceOf(pending.length));
      const { items, requests: joined } = await reader.resolve(rows);
      requests += joined;
      for (const [i, row] of rows.entries()) {
        const item = items[i];
        if (item === undefined) {
          lastRead = positionOfRow(source, row);
          continue;
        }
        const size = window.bytesOf(item);
        if (kept.length === window.first || (kept.length > 0 && bytes + size > window.maxBytes)) {
          return page(true);
        }
        lastRead = positionOfRow(source, row);
        kept.push({ item, position: lastRead });
        bytes += size;
        largest = Math.max(largest, size);
      }
    }
    if (requests >= PAGE_REQUESTS && !(exhausted && pending.length === 0)) {
      if (reader.sparse && lastRead !== undefined)
        return { ...page(true), endCursor: encodeCursor(source, lastRead) };
      if (!reader.sparse && kept.length >= 2) return page(true, kept.length - 1);
    }
  }
}
