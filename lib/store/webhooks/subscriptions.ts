import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomHex } from '#lib/clock';
import { subscribedTypes } from '#lib/domain/webhooks/endpoints';
import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import type { EventRecorder } from '#lib/domain/webhooks/recording';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import type { Item } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';
import { decodeEndpoints } from '#lib/store/webhooks/codec';
import { webhookEndpoints } from '#lib/store/webhooks/keys';
import { TtlCache } from '#lib/ttl-cache';
import { webhookConfig } from '#lib/webhook-config';

/**
 * Which event types a deployment's endpoints want, remembered per container for a few seconds. A
 * change records its event only when its type is wanted, so a deployment without webhooks costs no
 * write at all, and a warm container costs no read either. The price of the cache: for up to its
 * lifetime after an endpoint is created (or subscribes to more types), a container that read the old
 * list records no event of the new types. docs/webhooks.md states it: subscriptions count from a few
 * seconds after they are made. Nothing already recorded is ever dropped by it.
 */

let cache: TtlCache<ReadonlySet<WebhookEventType>> | undefined;
const subscriptionCache = () => {
  cache ??= new TtlCache(webhookConfig().webhookSubscriptionCacheMs);
  return cache;
};

async function readSubscribedTypes(deploymentId: number): Promise<ReadonlySet<WebhookEventType>> {
  // Eventually consistent, half the cost: the cache lets it be seconds stale anyway.
  const { Item: item } = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: webhookEndpoints(deploymentId) }),
  );
  return subscribedTypes(decodeEndpoints(item));
}

/** A time-ordered event id: the instant in base 36, then randomness. */
const newEventId = (now: number) => `evt_${now.toString(36).padStart(9, '0')}${randomHex(8)}`;

export const eventRecorder: EventRecorder = {
  subscribedTypes: (deploymentId) =>
    subscriptionCache().get(String(deploymentId), () => readSubscribedTypes(deploymentId)),
  newEventId,
};

const sameKey = (a: Item, b: Key) => a.pk === b.pk && a.sk === b.sk;

/**
 * For a caller that reads some items by key anyway (one BatchGetItem): the key of the deployment's
 * endpoints item to read beside them, unless the cache already knows its subscribed types.
 */
export function subscriptionsKeyToRead(deploymentId: number): Key | undefined {
  return subscriptionCache().peek(String(deploymentId)) ? undefined : webhookEndpoints(deploymentId);
}

/**
 * The subscribed types after such a read: decoded from the endpoints item when `read` (the key
 * subscriptionsKeyToRead gave) was among the keys read, else from the cache.
 */
export async function subscriptionsAmong(
  items: readonly Item[],
  deploymentId: number,
  read: Key | undefined,
): Promise<ReadonlySet<WebhookEventType>> {
  if (!read) return eventRecorder.subscribedTypes(deploymentId);
  const subscribed = subscribedTypes(decodeEndpoints(items.find((item) => sameKey(item, read))));
  void subscriptionCache().get(String(deploymentId), async () => subscribed);
  return subscribed;
}

/**
 * An item the caller reads anyway, strongly consistent, and the deployment's subscribed types: from
 * the cache when it holds them, else read beside the item in the same request (BatchGetItem), so that
 * a change's read costs no request more for knowing whether to record an event.
 */
export async function readWithSubscriptions(
  key: Key,
  deploymentId: number,
  known?: ReadonlySet<WebhookEventType>,
): Promise<{ item: Item | undefined; subscribed: ReadonlySet<WebhookEventType> }> {
  const cached = known ? Promise.resolve(known) : subscriptionCache().peek(String(deploymentId));
  if (cached) {
    const { Item: item } = await documentClient().send(
      new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
    );
    return { item, subscribed: await cached };
  }
  const endpointsKey = webhookEndpoints(deploymentId);
  const table = tableName();
  const { Responses, UnprocessedKeys } = await documentClient().send(
    new BatchGetCommand({ RequestItems: { [table]: { Keys: [key, endpointsKey], ConsistentRead: true } } }),
  );
  // Two small items are never left unprocessed but under throttling: read them one by one then.
  if (UnprocessedKeys?.[table]?.Keys?.length) {
    const { Item: item } = await documentClient().send(
      new GetCommand({ TableName: table, Key: key, ConsistentRead: true }),
    );
    return { item, subscribed: await eventRecorder.subscribedTypes(deploymentId) };
  }
  const items = Responses?.[table] ?? [];
  const subscribed = subscribedTypes(decodeEndpoints(items.find((found) => sameKey(found, endpointsKey))));
  void subscriptionCache().get(String(deploymentId), async () => subscribed);
  return { item: items.find((found) => sameKey(found, key)), subscribed };
}
