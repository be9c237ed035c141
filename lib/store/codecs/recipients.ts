import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import type { SubscriptionNonce } from '#lib/domain/recipients/recipient-kinds';
import type { RecipientRef } from '#lib/domain/recipients/recipients';
import type { RecipientProperties } from '#lib/domain/recipients/recipients-input';
import { canonicalJson, propertyNames } from '#lib/domain/recipients/recipients-properties';
import type { StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import type { RecipientRow } from '#lib/domain/runs/runs';
import { checkItem, parseJsonAttribute } from '#lib/store/codecs/stored-item';
import type { NotificationOnDashboard, RecipientIdentity } from '#lib/store/dynamo/index-keys';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';

/**
 * A recipient row in its notification's partition. An embed recipient's properties are kept as
 * canonical JSON text (`securityContextJson`, ...): any JSON a customer sends fits (numbers beyond
 * DynamoDB's range, nesting beyond its 32 levels), and comparing them is comparing strings.
 */

const jsonAttribute = (name: (typeof propertyNames)[number]) => `${name}Json` as const;

/** The recipient as the per-recipient index names it. */
export const identityOf = (recipient: StoredRecipient): RecipientIdentity =>
  recipient.type === 'USER'
    ? { type: recipient.type, userId: recipient.userId }
    : { type: recipient.type, embedUserId: recipient.embedUserId };

/**
 * `subscribedAt` is the row's first write, kept when a stored row is written again, so that the
 * row's place in the "recipients of a notification" index never moves.
 */
function recipientIndexKeys(
  notification: NotificationOnDashboard,
  recipient: StoredRecipient,
  rowSk: string,
): Item {
  const subscribedAt = recipient.subscribedAt ?? new Date().toISOString();
  return {
    subscribedAt,
    ...indexKeys.recipient(notification, identityOf(recipient), subscribedAt, rowSk),
  };
}

/** 96 random bits: no two subscriptions of a recipient share one. */
const newSubscriptionNonce = () => randomBytes(12).toString('base64url');

/** A row's nonce is drawn at its first write, like `subscribedAt`, and kept when the row is written again. */
const subscriptionAttributes = (recipient: StoredRecipient): Item => ({
  subscriptionNonce: recipient.subscriptionNonce ?? newSubscriptionNonce(),
});

/** The key of a recipient row, from the recipient's identity alone. */
export function recipientKey(notification: NotificationRef, recipient: RecipientRef): Key {
  return recipient.type === 'USER'
    ? keys.userRecipient(notification.deploymentId, notification.id, recipient.userId)
    : keys.embedRecipient(
        notification.deploymentId,
        notification.id,
        recipient.embedTenantName,
        recipient.normalizedExternalId,
      );
}

/** The property attributes (`securityContextJson`, ...) as stored: absent when the property is not set. */
export function propertyAttributes(properties: RecipientProperties): Record<string, string | undefined> {
  return Object.fromEntries(
    propertyNames.map((name) => [
      jsonAttribute(name),
      properties[name] === undefined ? undefined : canonicalJson(properties[name]),
    ]),
  );
}

/** The row of `recipient`; its index entries name the notification's dashboard too. */
export function encodeRecipient(notification: NotificationOnDashboard, recipient: StoredRecipient): Item {
  const key = recipientKey(notification, recipient);
  if (recipient.type === 'USER') {
    return {
      ...key,
      ...recipientIndexKeys(notification, recipient, key.sk),
      ...subscriptionAttributes(recipient),
      entity: 'RECIPIENT',
      type: 'USER',
      userId: recipient.userId,
    };
  }
  const item: Item = {
    ...key,
    ...recipientIndexKeys(notification, recipient, key.sk),
    ...subscriptionAttributes(recipient),
    entity: 'RECIPIENT',
    type: 'EMBED_USER',
    embedTenantName: recipient.embedTenantName,
    normalizedExternalId: recipient.normalizedExternalId,
    externalId: recipient.externalId,
    embedUserId: recipient.embedUserId,
    email: recipient.email,
  };
  for (const [attribute, json] of Object.entries(propertyAttributes(recipient.properties))) {
    if (json !== undefined) item[attribute] = json;
  }
  return item;
}

const parentItem = () => z.looseObject({ deploymentId: z.int(), id: z.int(), dashboardId: z.int() });

/**
 * A notification item as its recipient rows need it: its identity and its dashboard, which their
 * index entries name. Read without the schedule, so that writing rows does not load the cron parser.
 */
export function decodeRecipientParent(item: Item): NotificationOnDashboard {
  const { deploymentId, id, dashboardId } = checkItem('notification', parentItem, item);
  return { deploymentId, id, dashboardId };
}

// Rows written before the recipients index have no subscription instant, and those written before
// unsubscribe links were bound to a subscription no nonce.
const subscribedAt = () => z.optional(z.string());
const subscriptionNonce = () => z.optional(z.string());
const userRowItem = () =>
  z.looseObject({
    type: z.literal('USER'),
    userId: z.int(),
    subscribedAt: subscribedAt(),
    subscriptionNonce: subscriptionNonce(),
  });
const embedRowItem = () =>
  z.looseObject({
    type: z.literal('EMBED_USER'),
    embedTenantName: z.string(),
    normalizedExternalId: z.string(),
    externalId: z.string(),
    embedUserId: z.int(),
    email: z.string(),
    subscribedAt: subscribedAt(),
    subscriptionNonce: subscriptionNonce(),
    securityContextJson: z.optional(z.string()),
    userAttributesJson: z.optional(z.string()),
    groupsJson: z.optional(z.string()),
  });

const subscriptionItem = () => z.looseObject({ subscriptionNonce: subscriptionNonce() });

/** The nonce of a stored recipient row (undefined: a row stored before nonces existed). */
export const subscriptionNonceOf = (item: Item): SubscriptionNonce | undefined =>
  checkItem('recipient row', subscriptionItem, item).subscriptionNonce;

/**
 * The condition that a recipient row, if there is one, is the subscription of `nonce` (no nonce: a row
 * stored before nonces existed).
 */
export function sameSubscriptionCondition(nonce: SubscriptionNonce | undefined) {
  return nonce === undefined
    ? {
        ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(#nonce)',
        ExpressionAttributeNames: { '#nonce': 'subscriptionNonce' },
      }
    : {
        ConditionExpression: 'attribute_not_exists(pk) OR #nonce = :nonce',
        ExpressionAttributeNames: { '#nonce': 'subscriptionNonce' },
        ExpressionAttributeValues: { ':nonce': nonce },
      };
}

/** The row's subscription instant and nonce, each only when stored. */
const subscriptionOf = (row: {
  subscribedAt?: string | undefined;
  subscriptionNonce?: string | undefined;
}) => ({
  ...(row.subscribedAt === undefined ? {} : { subscribedAt: row.subscribedAt }),
  ...(row.subscriptionNonce === undefined ? {} : { subscriptionNonce: row.subscriptionNonce }),
});

export function decodeRecipient(item: Item): StoredRecipient {
  // The row's kind picks its schema; a kind that is neither fails the embed schema on `type`.
  if (item.type === 'USER') {
    const row = checkItem('recipient row', userRowItem, item);
    return { type: 'USER', userId: row.userId, ...subscriptionOf(row) };
  }
  const stored = checkItem('recipient row', embedRowItem, item);
  const properties: RecipientProperties = {};
  for (const name of propertyNames) {
    // Written from a checked request as canonical JSON: the text is trusted to hold the property's shape.
    if (stored[jsonAttribute(name)] !== undefined)
      Object.assign(properties, { [name]: parseJsonAttribute('recipient row', item, jsonAttribute(name)) });
  }
  return {
    type: 'EMBED_USER',
    embedTenantName: stored.embedTenantName,
    normalizedExternalId: stored.normalizedExternalId,
    externalId: stored.externalId,
    embedUserId: stored.embedUserId,
    email: stored.email,
    properties,
    ...subscriptionOf(stored),
  };
}

const rowKeyItem = () => z.looseObject({ sk: z.string() });

/** A row as the dispatcher pages through them: the recipient, and its sort key, where the next page starts. */
export const decodeRecipientRow = (item: Item): RecipientRow => ({
  key: checkItem('recipient row', rowKeyItem, item).sk,
  recipient: decodeRecipient(item),
});
