import { relayDue, sqsMessageQueue } from '#lib/jobs/webhook-relay';
import { logger } from '#lib/log';
import { webhookEndpointReader } from '#lib/store/webhooks/endpoints';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { webhookConfig } from '#lib/webhook-config';

/**
 * The webhook relay, started every minute by an EventBridge rule: what the outbox holds due goes on
 * the webhook queue (lib/jobs/webhook-relay.ts), where webhook-sender takes it.
 */
export async function handler() {
  const queueUrl = webhookConfig().webhookQueueUrl;
  if (!queueUrl) throw new Error('WEBHOOK_QUEUE_URL is not set');
  const summary = await relayDue(
    { outbox: webhookOutbox, endpoints: webhookEndpointReader, queue: sqsMessageQueue(queueUrl) },
    Date.now(),
  );
  if (summary.events + summary.relayed > 0) logger.info('webhook relay', { ...summary });
  return summary;
}
