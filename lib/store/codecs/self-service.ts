import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod/mini';
import type { NotificationOwner } from '#lib/domain/notifications/notification';
import { normalizeExternalId } from '#lib/domain/recipients/recipients-input';
import { type SelfServiceSettings, selfServiceDefaults } from '#lib/domain/self-service/self-service';
import { checkItem, itemKey, MalformedItemError } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';

/**
 * A tenant's self-service settings, as attributes of its tenant item (absent ones are the defaults),
 * and an embed user's subscription links and count, in the embed user's partition.
 */

export const selfServiceAttributes = {
  enabled: 'selfServiceEnabled',
  maxPerUser: 'selfServiceMaxPerUser',
  minIntervalMinutes: 'selfServiceMinIntervalMinutes',
} as const satisfies Record<keyof SelfServiceSettings, string>;

export const SELF_SERVICE_COUNT_ATTRIBUTE = 'subscriptions';
/** What an embed user's count item holds besides its count, set by every write that makes it. */
export const selfServiceCountEntity = { entity: 'SELF_SERVICE_COUNT' } as const;

const settingsItem = () =>
  z.looseObject({
    selfServiceEnabled: z.optional(z.boolean()),
    selfServiceMaxPerUser: z.optional(z.int()),
    selfServiceMinIntervalMinutes: z.optional(z.int()),
  });

export function encodeSelfServiceSettings(settings: Partial<SelfServiceSettings>): Item {
  const item: Item = {};
  for (const [field, attribute] of Object.entries(selfServiceAttributes)) {
    const value = settings[field as keyof SelfServiceSettings];
    if (value !== undefined) item[attribute] = value;
  }
  return item;
}

export function decodeSelfServiceSettings(tenantItem: Item): SelfServiceSettings {
  const stored = checkItem('embed tenant', settingsItem, tenantItem);
  return {
    enabled: stored.selfServiceEnabled ?? selfServiceDefaults.enabled,
    maxPerUser: stored.selfServiceMaxPerUser ?? selfServiceDefaults.maxPerUser,
    minIntervalMinutes: stored.selfServiceMinIntervalMinutes ?? selfServiceDefaults.minIntervalMinutes,
  };
}

type EmbedOwner = Extract<NotificationOwner, { type: 'EMBED_USER' }>;

/** The paths of a notification item's owner map that a write's condition names. */
export const ownerPaths = { type: 'owner.type', embedUserId: 'owner.embedUserId' } as const;

/**
 * The embed owner of a notification item as a refused transaction returns it (DynamoDB's attribute
 * values, not the document client's); undefined when it has none.
 */
export function embedOwnerAttribute(item: Record<string, AttributeValue>): EmbedOwner | undefined {
  const owner = item.owner?.M;
  if (owner?.type?.S !== 'EMBED_USER') return undefined;
  const [embedTenantName, externalId, embedUserId] = [
    owner.embedTenantName?.S,
    owner.externalId?.S,
    owner.embedUserId?.N,
  ];
  if (embedTenantName === undefined || externalId === undefined || embedUserId === undefined)
    throw new MalformedItemError(
      'notification',
      itemKey({ pk: item.pk?.S, sk: item.sk?.S }),
      'owner',
      'is not an embed owner',
    );
  return { type: 'EMBED_USER', embedTenantName, externalId, embedUserId: Number(embedUserId) };
}

/** The count item and the link of an embed-owned notification. */
export const countKey = (owner: Pick<EmbedOwner, 'embedTenantName' | 'externalId'>) =>
  keys.selfServiceCount(owner.embedTenantName, normalizeExternalId(owner.externalId));
export const linkKey = (owner: Pick<EmbedOwner, 'embedTenantName' | 'externalId'>, notificationId: number) =>
  keys.selfServiceLink(owner.embedTenantName, normalizeExternalId(owner.externalId), notificationId);

export const encodeLink = (owner: EmbedOwner, deploymentId: number, notificationId: number): Item => ({
  ...linkKey(owner, notificationId),
  entity: 'SELF_SERVICE_LINK',
  deploymentId,
  id: notificationId,
});

const linkItem = () => z.looseObject({ deploymentId: z.int(), id: z.int() });

export const decodeLink = (item: Item) => checkItem('self-service link', linkItem, item);
