import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PageRequest } from '#lib/domain/paging';
import { ValidationError } from '#lib/errors';
import { documentClient, tableName } from '#lib/store/client';
import type { Item } from '#lib/store/items';

/**
 * Keyset paging over one index. A cursor is base64url JSON `[list, position]`: the identity of the
 * list it was issued for and the index sort key of the page's last item. Nothing secret is in it;
 * instead a cursor is accepted only for the list it names, and its position only if it has the
 * shape that list's sort keys have. From those two the whole start key is rebuilt here, so a
 * forged cursor can at worst start a walk at another point of the caller's own list.
 */

export interface IndexList {
  /** Identifies the list: the index partition plus whatever else selects the items. */
  id: string;
  index: string;
  partitionKey: { name: string; value: string };
  sortKeyName: string;
  /** Whether `position` is a sort key this list can have. */
  isPosition: (position: string) => boolean;
  /** The table key of the item at `position` (the start key of an index query needs it). */
  tableKeyAt: (position: string) => { pk: string; sk: string };
}

export function encodeCursor(list: IndexList, position: string): string {
  return Buffer.from(JSON.stringify([list.id, position])).toString('base64url');
}

const foreignCursor = () => new ValidationError([{ path: 'after', message: 'is not a cursor of this list' }]);

/** The position a cursor stands for, or a 400 naming `after` when this list did not issue it. */
function decodeCursor(list: IndexList, cursor: string): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw foreignCursor();
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    decoded[0] !== list.id ||
    typeof decoded[1] !== 'string' ||
    !list.isPosition(decoded[1]) ||
    encodeCursor(list, decoded[1]) !== cursor
  ) {
    throw foreignCursor();
  }
  return decoded[1];
}

function startKeyOf(list: IndexList, position: string): Record<string, string> {
  return {
    [list.partitionKey.name]: list.partitionKey.value,
    [list.sortKeyName]: position,
    ...list.tableKeyAt(position),
  };
}

export interface IndexPage {
  items: Item[];
  /** Whether the index holds more items after the last one returned. */
  more: boolean;
}

/**
 * One Query, newest first, for `limit` items and one more: the extra item says whether a next page
 * exists without a second call that might come back empty.
 */
export async function queryIndex(list: IndexList, limit: number, after?: string): Promise<IndexPage> {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: list.index,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': list.partitionKey.name },
      ExpressionAttributeValues: { ':pk': list.partitionKey.value },
      ScanIndexForward: false,
      Limit: limit + 1,
      ...(after !== undefined && { ExclusiveStartKey: startKeyOf(list, after) }),
    }),
  );
  return { items: Items.slice(0, limit), more: Items.length > limit };
}

/** Decodes the request's cursor (if any) into a position, checked against the list. */
export const positionOf = (list: IndexList, page: PageRequest) =>
  page.after === undefined ? undefined : decodeCursor(list, page.after);
