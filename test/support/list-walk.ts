import type { DynamoMeter } from '#lib/local/dynamodb-meter';
import type { ApiResponse } from '#test/support/local-api';

export interface ListWalk {
  items: ApiResponse['body'][];
  pages: number;
  largestPageBytes: number;
  /** With a meter: the most DynamoDB requests one page took. */
  mostRequests: number;
}

/**
 * Every page of a list, following `endCursor` while `hasNextPage`, each page's bytes (and, with a meter,
 * its DynamoDB requests) measured; `between` runs after every page but the last. The tests and the bench
 * walk lists with it. `sparse`: a list filtered beyond its index key, whose page may end at its bound of
 * reads with no item and a cursor to go on from.
 */
export async function walkList(
  fetchPage: (after?: string) => Promise<ApiResponse>,
  {
    meter,
    between,
    sparse = false,
  }: { meter?: DynamoMeter; between?: (page: number) => Promise<void>; sparse?: boolean } = {},
): Promise<ListWalk> {
  const walked: ListWalk = { items: [], pages: 0, largestPageBytes: 0, mostRequests: 0 };
  for (let after: string | undefined; walked.pages < 2000; ) {
    meter?.reset();
    const response = await fetchPage(after);
    const page = walked.pages++;
    if (response.status !== 200) throw new Error(`page ${page}: ${response.text.slice(0, 200)}`);
    walked.mostRequests = Math.max(walked.mostRequests, meter?.totalRequests() ?? 0);
    walked.largestPageBytes = Math.max(walked.largestPageBytes, Buffer.byteLength(response.text));
    const { items, pageInfo } = response.body;
    if (pageInfo.hasNextPage && items.length === 0 && !(sparse && pageInfo.endCursor))
      throw new Error(`page ${page} is empty, not the last`);
    walked.items.push(...items);
    if (!pageInfo.hasNextPage) return walked;
    after = pageInfo.endCursor;
    await between?.(page);
  }
  throw new Error('the walk did not end');
}
