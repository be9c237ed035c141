import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import type { Item } from '#lib/store/dynamo/items';

const sortedKeys = (_key: string, value: unknown) =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
    : value;

/**
 * Every item of the file's table, in key order, as comparable text: two snapshots are equal exactly
 * when nothing was written in between (a refused request must leave them equal).
 */
export async function tableSnapshot(): Promise<string[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.map((item) => JSON.stringify(item, sortedKeys)).sort();
}
