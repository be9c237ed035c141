import type { Key } from '#lib/store/dynamo/keys';

/**
 * Where webhooks live in the single table (docs/data-model.md, "Webhooks"):
 * - a deployment's endpoints: one item, one attribute per endpoint (at most ten), so that the
 *   sender, the subscription check and the list each read one item;
 * - an outbox event: an item of its own until the sender has made its messages;
 * - a message: in its endpoint's partition, newest last, expiring 30 days after its event;
 * - events and pending messages are in the due index (gsi3) under `WEBHOOKS_DUE`, by the instant of
 *   their next step, which the sender reads.
 */

export const webhookEndpoints = (deploymentId: number): Key => ({
  pk: `DEPLOYMENT#${deploymentId}#WEBHOOKS`,
  sk: 'ENDPOINTS',
});

/** The attribute of the endpoints item that holds one endpoint (ids are `wh_` + hex: safe as a name). */
export const ENDPOINT_ATTRIBUTE_PREFIX = 'wh_';

export const outboxEvent = (eventId: string): Key => ({ pk: `WEBHOOK_EVENT#${eventId}`, sk: 'EVENT' });

export const webhookMessagesPartition = (deploymentId: number, webhookId: string) =>
  `DEPLOYMENT#${deploymentId}#WEBHOOK#${webhookId}`;
export const MESSAGE_PREFIX = 'MESSAGE#';

export const webhookMessage = (deploymentId: number, webhookId: string, messageId: string): Key => ({
  pk: webhookMessagesPartition(deploymentId, webhookId),
  sk: `${MESSAGE_PREFIX}${messageId}`,
});

export const WEBHOOKS_DUE_PARTITION = 'WEBHOOKS_DUE';

/** The due-index entry of what the sender does next at `instant`. */
export const webhookDueEntry = (instant: string, kind: 'EVENT' | 'MESSAGE', id: string) => ({
  gsi3pk: WEBHOOKS_DUE_PARTITION,
  gsi3sk: `${instant}#${kind}#${id}`,
});
