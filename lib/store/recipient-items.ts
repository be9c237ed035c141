import type { NotificationRef } from '#lib/domain/recipients';
import type { RecipientProperties } from '#lib/domain/recipients-input';
import { canonicalJson, propertyNames } from '#lib/domain/recipients-properties';
import type { StoredRecipient } from '#lib/domain/recipients-resolution';
import type { Item } from '#lib/store/items';
import { keys } from '#lib/store/keys';

/**
 * A recipient row in its notification's partition. An embed recipient's properties are kept as
 * canonical JSON text (`securityContextJson`, ...): any JSON a customer sends fits (numbers beyond
 * DynamoDB's range, nesting beyond its 32 levels), and comparing them is comparing strings.
 */

const jsonAttribute = (name: (typeof propertyNames)[number]) => `${name}Json`;

export function recipientToItem(notification: NotificationRef, recipient: StoredRecipient): Item {
  if (recipient.type === 'USER') {
    return {
      ...keys.userRecipient(notification.deploymentId, notification.id, recipient.userId),
      entity: 'RECIPIENT',
      type: 'USER',
      userId: recipient.userId,
    };
  }
  const item: Item = {
    ...keys.embedRecipient(
      notification.deploymentId,
      notification.id,
      recipient.embedTenantName,
      recipient.normalizedExternalId,
    ),
    entity: 'RECIPIENT',
    type: 'EMBED_USER',
    embedTenantName: recipient.embedTenantName,
    normalizedExternalId: recipient.normalizedExternalId,
    externalId: recipient.externalId,
    embedUserId: recipient.embedUserId,
    email: recipient.email,
  };
  for (const name of propertyNames) {
    if (recipient.properties[name] !== undefined)
      item[jsonAttribute(name)] = canonicalJson(recipient.properties[name]);
  }
  return item;
}

export function recipientFromItem(item: Item): StoredRecipient {
  if (item.type === 'USER') return { type: 'USER', userId: item.userId as number };
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
  };
}
