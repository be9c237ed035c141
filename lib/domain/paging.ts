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
  /**
   * Where the next page starts when that is past the last item: a filtered list whose page ended at
   * its bound of reads on rows that did not pass (it may hold fewer items than asked, or none).
   */
  endCursor?: string;
}

/**
 * A page's JSON body is at most 1 MiB whatever its items weigh (a Lambda answer may be 6 MB, an API
 * Gateway one 10 MB: a page stays far below both), so a page may hold fewer than `first` items.
 */
export const PAGE_BODY_MAX_BYTES = 1024 * 1024;
/** The longest cursor the service issues, in characters; an `after` longer than this is none of its cursors. */
export const CURSOR_MAX_LENGTH = 2048;
/** The body around the items: `{"items":[…],"pageInfo":{…}}` with both cursors at their longest. */
const PAGE_ENVELOPE_BYTES = 2 * CURSOR_MAX_LENGTH + 256;

/** A page as a store fills it: at most `first` items, and at most `maxBytes` of them as JSON. */
export interface PageWindow<T> extends PageRequest {
  maxBytes: number;
  /** An item's bytes in the page's JSON body, its separating comma included. */
  bytesOf: (item: T) => number;
}

/** The window of a page whose items answer as `toDto` makes them. */
export function pageWindow<T>(request: PageRequest, toDto: (item: T) => unknown): PageWindow<T> {
  return {
    first: request.first,
    ...(request.after !== undefined && { after: request.after }),
    maxBytes: PAGE_BODY_MAX_BYTES - PAGE_ENVELOPE_BYTES,
    bytesOf: (item) => Buffer.byteLength(JSON.stringify(toDto(item)), 'utf8') + 1,
  };
}

export function toPage<T, U>(stored: StoredPage<T>, request: PageRequest, map: (item: T) => U): Page<U> {
  return {
    items: stored.items.map(map),
    pageInfo: {
      startCursor: stored.cursors[0] ?? null,
      endCursor: stored.endCursor ?? stored.cursors[stored.cursors.length - 1] ?? null,
      hasNextPage: stored.hasNextPage,
      hasPreviousPage: request.after !== undefined,
    },
  };
}

export const emptyPage = <T>(): StoredPage<T> => ({ items: [], cursors: [], hasNextPage: false });
