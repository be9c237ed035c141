/**
 * What one DynamoDB table can hold, stated once. Every size limit of the API is derived from these
 * figures (docs/limits.md lists them with the reasoning), so a request within the documented limits
 * always fits the item, key and transaction it is written in.
 */
export const dynamoDbLimits = {
  /** An item, attribute names and values together, UTF-8. */
  itemBytes: 400 * 1024,
  partitionKeyBytes: 2048,
  sortKeyBytes: 1024,
  /** TransactWriteItems: actions and their total size. */
  transactionItems: 100,
  transactionBytes: 4 * 1024 * 1024,
  /** BatchWriteItem: requests and their total size. */
  batchWriteItems: 25,
  batchWriteBytes: 16 * 1024 * 1024,
  batchGetKeys: 100,
  /** Nested lists and maps in one attribute. */
  nestingDepth: 32,
} as const;

/**
 * The largest message SQS accepts, its body in UTF-8 bytes (1 MiB; a queue's default may be less, so
 * the delivery queue sets it). Every delivery job the input limits allow fits in it
 * (test/scheduling/job-size.test.ts builds the largest).
 */
export const SQS_MESSAGE_MAX_BYTES = 1024 * 1024;

/** UTF-8 size of text, the unit DynamoDB counts in. */
export const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * An upper bound of an item's stored size: its JSON text is never shorter than DynamoDB's count
 * (the same names and string bytes, plus quotes and punctuation; a number's text is at most its 21 bytes).
 */
export const itemBytesAtMost = (item: Record<string, unknown>) => utf8Bytes(JSON.stringify(item));

/**
 * A notification item's room for its filters and its time grains, as JSON text (UTF-8). What is left
 * of the 400 KB item (80 KiB) holds its keys, schedule fields and index attributes many times over.
 */
export const notificationJsonBytes = { filters: 256 * 1024, timeGrains: 64 * 1024 } as const;
