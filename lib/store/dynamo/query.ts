import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import type { Item } from '#lib/store/dynamo/items';
import type { SecondaryIndex } from '#lib/store/dynamo/keys';

/**
 * Queries, the store's one way of reading a key range. DynamoDB ends a Query at `Limit` items or at
 * 1 MB read, whichever comes first, and then names the key to go on from (`LastEvaluatedKey`): a read
 * that needs the whole range follows those keys here, and nowhere else.
 */

/** One read's answer: its items (none for a count), how many it matched, and where the next read starts. */
export interface ReadPage {
  items: Item[];
  count: number;
  /** The key the next read starts after; absent when nothing is left. */
  next?: Item;
}

/** A Query of this table, or of one of its indexes (`IndexName`). */
export type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/** A Query's or a Scan's answer as a page. */
export function pageOf(output: { Items?: Item[]; Count?: number; LastEvaluatedKey?: Item }): ReadPage {
  const { Items = [], Count = 0, LastEvaluatedKey } = output;
  return { items: Items, count: Count, ...(LastEvaluatedKey && { next: LastEvaluatedKey }) };
}

/** One Query call: a page of at most `Limit` items and at most 1 MB, from `start` on. */
export async function queryPage(input: QueryInput, start?: Item): Promise<ReadPage> {
  return pageOf(
    await documentClient().send(
      new QueryCommand({ TableName: tableName(), ...input, ExclusiveStartKey: start }),
    ),
  );
}

/** Every page of a paged read (a Query, a Scan), one call each, until none follows or the caller stops. */
export async function* allPages(
  read: (start: Item | undefined) => Promise<ReadPage>,
): AsyncGenerator<ReadPage> {
  let start: Item | undefined;
  do {
    const page = await read(start);
    yield page;
    start = page.next;
  } while (start);
}

/** Every item of a Query, however many 1 MB pages it takes. */
export async function queryAll(input: QueryInput): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of allPages((start) => queryPage(input, start))) items.push(...page.items);
  return items;
}

/** How many items a Query matches, counted without returning them, however many pages it takes. */
export async function countAll(input: QueryInput): Promise<number> {
  let count = 0;
  for await (const page of allPages((start) => queryPage({ ...input, Select: 'COUNT' }, start))) {
    count += page.count;
  }
  return count;
}

/** A string attribute of a key or an item (a sort key to go on from), or undefined when it holds none. */
export function stringAttribute(item: Item | undefined, name: string): string | undefined {
  const value = item?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** The entries of an index partition whose sort keys sort below `bound`, lowest first. */
export const belowInIndex = (index: SecondaryIndex, partition: string, bound: string): QueryInput => ({
  IndexName: index.name,
  KeyConditionExpression: '#pk = :partition AND #sk < :bound',
  ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
  ExpressionAttributeValues: { ':partition': partition, ':bound': bound },
});

/**
 * The entries of an index partition whose sort key is after `after` (exclusive; from the first when
 * undefined) and at most `through`. The least string above `after` is `after` and a NUL.
 */
export const withinInIndex = (
  index: SecondaryIndex,
  partition: string,
  after: string | undefined,
  through: string,
): QueryInput => ({
  IndexName: index.name,
  KeyConditionExpression:
    after === undefined
      ? '#pk = :partition AND #sk <= :through'
      : '#pk = :partition AND #sk BETWEEN :from AND :through',
  ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
  ExpressionAttributeValues: {
    ':partition': partition,
    ':through': through,
    ...(after !== undefined && { ':from': `${after}\u0000` }),
  },
});
