/** Cursor paging as every list of the API answers it: newest first, opaque cursors. */

export interface PageRequest {
  /** Items wanted, 1–200. */
  first: number;
  /** A previous page's `endCursor` of the same list. */
  after?: string;
}

interface PageInfo {
  startCursor: string | null;
  endCursor: string | null;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

export interface Page<T> {
  items: T[];
  pageInfo: PageInfo;
}

/** What a store returns for one page: the items, each item's cursor, and whether more follow. */
export interface StoredPage<T> {
  items: T[];
  cursors: string[];
  hasNextPage: boolean;
}

export function toPage<T, U>(stored: StoredPage<T>, request: PageRequest, map: (item: T) => U): Page<U> {
  return {
    items: stored.items.map(map),
    pageInfo: {
      startCursor: stored.cursors[0] ?? null,
      endCursor: stored.cursors[stored.cursors.length - 1] ?? null,
      hasNextPage: stored.hasNextPage,
      hasPreviousPage: request.after !== undefined,
    },
  };
}

export const emptyPage = <T>(): StoredPage<T> => ({ items: [], cursors: [], hasNextPage: false });
