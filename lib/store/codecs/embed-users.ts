import * as z from 'zod/mini';
import type { EmbedUser } from '#lib/domain/entities';
import { normalizeExternalId } from '#lib/domain/recipients/recipients-input';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';

/** An embed user: one item per tenant and normalized externalId. */

const embedUserItem = () =>
  z.looseObject({
    embedUserId: z.int(),
    embedTenantName: z.string(),
    externalId: z.string(),
    email: z.string(),
  });

export function encodeEmbedUser(user: EmbedUser): Item {
  return {
    ...keys.embedUser(user.embedTenantName, normalizeExternalId(user.externalId)),
    entity: 'EMBED_USER',
    embedUserId: user.embedUserId,
    embedTenantName: user.embedTenantName,
    externalId: user.externalId,
    email: user.email,
  };
}

export function decodeEmbedUser(item: Item): EmbedUser {
  const { embedUserId, embedTenantName, externalId, email } = checkItem('embed user', embedUserItem, item);
  return { embedUserId, embedTenantName, externalId, email };
}
