/**
 * Every size limit, stated once: what DynamoDB and SQS can hold, and the API's limits derived from
 * them (docs/limits.md lists them with the reasoning), so a request within the documented limits
 * always fits the item, key, transaction and message it is written in. A leaf module: the domain,
 * the schemas, the store and the CDK stack all read it, and it imports nothing.
 */

/** What one DynamoDB table can hold. */
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

/** The largest request body any route takes (413 past it), JSON or not: bytes as received, decoded. */
export const REQUEST_BODY_MAX_BYTES = 5 * 1024 * 1024;

/** UTF-8 size of text, the unit DynamoDB counts in. */
export const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * An upper bound of an item's stored size: its JSON text is never shorter than DynamoDB's count
 * (the same names and string bytes, plus quotes and punctuation; a number's text is at most its 21 bytes).
 */
export const itemBytesAtMost = (item: Record<string, unknown>) => utf8Bytes(JSON.stringify(item));

/**
 * The most bytes one free-text key part (tenant name, externalId, e-mail, subject) may take once
 * percent-encoded: two of them fill the longest sort key that holds them (an embed recipient row's
 * entry in the recipients index: its 24-character subscription instant, `#`, then
 * `RECIPIENT#EMBED_USER#<tenant>#<externalId>`, 47 bytes of fixed text in all) up to DynamoDB's
 * 1024 bytes, and every other key that holds them has more room. test/domain/recipients-input.test.ts
 * builds that key.
 */
export const KEY_PART_MAX_BYTES = Math.floor((dynamoDbLimits.sortKeyBytes - 47) / 2);

/** Key parts with a limit of their own, in characters; each well within KEY_PART_MAX_BYTES. */
export const keyPartLimits = {
  /** A dashboard's publicId: URL-safe, so encoded the same. */
  publicId: 128,
} as const;

/** Whether `value` can be a free-text key part: well-formed (else it cannot be encoded) and at most KEY_PART_MAX_BYTES encoded. */
export const fitsKeyPart = (value: string): boolean =>
  value.isWellFormed() && encodeURIComponent(value).length <= KEY_PART_MAX_BYTES;

/**
 * A notification's lists, each kept as JSON text in the notification's item, and what each may hold.
 * Their counts and lengths multiply out within their byte budgets: text is at most 3 bytes a character
 * as JSON (UTF-8), since the lists refuse control characters other than tab and line breaks (which
 * JSON writes as six bytes), so 100 filters with a 255-character member and a 400-character value
 * take at most 202,501 bytes of the 224 KiB; 50 time grains with a 64-character grain 49,101 of 48 KiB;
 * 50 switchers with a 255-character choice 77,901 of 80 KiB. A filter's value given as a list, and its
 * free-form `caseSensitive`, `startInclusive` and `endInclusive`, are bounded by the list's bytes only.
 * The budgets (352 KiB together) leave 48 KiB of the 400 KB item for its keys, schedule fields and
 * index attributes, many times what they take.
 */
export const notificationListLimits = {
  /** Characters of a `<Cube>.<member>` path in any of the lists. */
  memberPathLength: 255,
  filters: { items: 100, valueLength: 400, bytes: 224 * 1024 },
  timeGrains: { items: 50, grainLength: 64, bytes: 48 * 1024 },
  memberSwitchers: { items: 50, selectedLength: 255, bytes: 80 * 1024 },
} as const;

/** Each list's room in the notification's item, as JSON text (UTF-8). */
export const notificationJsonBytes = {
  filters: notificationListLimits.filters.bytes,
  timeGrains: notificationListLimits.timeGrains.bytes,
  memberSwitchers: notificationListLimits.memberSwitchers.bytes,
} as const;
