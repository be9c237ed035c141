import type { WebhookEndpoint } from '#lib/domain/webhooks/endpoints';
import type { Item } from '#lib/store/dynamo/items';
import { ENDPOINT_ATTRIBUTE_PREFIX } from '#lib/store/webhooks/keys';

/** The endpoints an endpoints item holds (lib/store/webhooks/keys.ts), oldest first. */
export const decodeEndpoints = (item: Item | undefined): WebhookEndpoint[] =>
  Object.entries(item ?? {})
    .filter(([name]) => name.startsWith(ENDPOINT_ATTRIBUTE_PREFIX))
    .map(([, value]) => value as WebhookEndpoint)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
