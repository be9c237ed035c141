import type { StoredEmbedRecipient } from '#lib/domain/recipients/recipients-resolution';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import type { Item } from '#lib/store/dynamo/items';

/** Items written straight into the table (already encoded, as the stores write them), 16 BatchWrites in flight. */
export const putItems = (items: readonly Item[]) =>
  batchWriteAll(
    items.map((item) => ({ PutRequest: { Item: item } })),
    { concurrency: 16 },
  );

/** An embed recipient of tenant acme, `<name>-<i>@example.com`, with embed user id `firstUserId + i`. */
export function embedRecipient(
  name: string,
  i: number,
  properties = {},
  firstUserId = 1_000_000,
): StoredEmbedRecipient {
  const externalId = `${name}-${i}@example.com`;
  return {
    type: 'EMBED_USER',
    embedTenantName: 'acme',
    normalizedExternalId: externalId,
    externalId,
    embedUserId: firstUserId + i,
    email: externalId,
    properties,
  };
}
