import type { WebhookEndpoint } from '#lib/domain/webhooks/endpoints';
import type { Item } from '#lib/store/dynamo/items';
import { ENDPOINT_ATTRIBUTE_PREFIX } from '#lib/store/webhooks/keys';

/** The endpoints item's count of its endpoints, which the create's condition holds to the limit. */
export const ENDPOINT_COUNT_ATTRIBUTE = 'endpointCount';

/** The path of an endpoint's version in the endpoints item (the endpoint is the attribute named by its id). */
export const endpointVersionPath = (id: string) => `${id}.version`;

/** The endpoints an endpoints item holds (lib/store/webhooks/keys.ts), oldest first. */
export const decodeEndpoints = (item: Item | undefined): WebhookEndpoint[] =>
  Object.entries(item ?? {})
    .filter(([name]) => name.startsWith(ENDPOINT_ATTRIBUTE_PREFIX))
    .map(([, value]) => value as WebhookEndpoint)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
