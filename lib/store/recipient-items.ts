import type { NotificationRef, RecipientRef } from '#lib/domain/recipients';
import type { RecipientProperties } from '#lib/domain/recipients-input';
import { canonicalJson, propertyNames } from '#lib/domain/recipients-properties';
import type { StoredRecipient } from '#lib/domain/recipients-resolution';
import type { Item } from '#lib/store/items';
import { indexKeys, type Key, keys } from '#lib/store/keys';

/**
 * A recipient row in its notification's partition. An embed recipient's properties are kept as
 * canonical JSON text (`securityContextJson`, ...): any JSON a customer sends fits (numbers beyond
 * DynamoDB's range, nesting beyond its 32 levels), and comparing them is comparing strings.
 */

const jsonAttribute = (name: (typeof propertyNames)[number]) => `${name}Json`;

/**
 * `subscribedAt` is the row's first write, kept when a stored row is written again, so that the
 * row's place in the "recipients of a notification" index never moves.
 */
function recipientIndexKeys(notification: NotificationRef, recipient: StoredRecipient, rowSk: string): Item {
  const subscribedAt = recipient.subscribedAt ?? new Date().toISOString();
  const identity =
    recipient.type === 'USER'
      ? { type: 'USER' as const, userId: recipient.userId }
      : { type: 'EMBED_USER' as const, embedUserId: recipient.embedUserId };
  return {
    subscribedAt,
    ...indexKeys.recipient(notification.deploymentId, notification.id, identity, subscribedAt, rowSk),
  };
}

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

export function recipientToItem(notification: NotificationRef, recipient: StoredRecipient): Item {
  const key = recipientKey(notification, recipient);
  if (recipient.type === 'USER') {
    return {
      ...key,
      ...recipientIndexKeys(notification, recipient, key.sk),
      entity: 'RECIPIENT',
      type: 'USER',
      userId: recipient.userId,
    };
  }
  const item: Item = {
    ...key,
    ...recipientIndexKeys(notification, recipient, key.sk),
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

export function recipientFromItem(item: Item): StoredRecipient {
  const subscribedAt = typeof item.subscribedAt === 'string' ? { subscribedAt: item.subscribedAt } : {};
  if (item.type === 'USER') return { type: 'USER', userId: item.userId as number, ...subscribedAt };
  const properties: RecipientProperties = {};
  for (const name of propertyNames) {
    const json = item[jsonAttribute(name)];
    if (typeof json === 'string') Object.assign(properties, { [name]: JSON.parse(json) });
  }
  return {
    type: 'EMBED_USER',
    embedTenantName: item.embedTenantName as string,
    normalizedExternalId: item.normalizedExternalId as string,
    externalId: item.externalId as string,
    embedUserId: item.embedUserId as number,
    email: item.email as string,
    properties,
    ...subscribedAt,
  };
}
