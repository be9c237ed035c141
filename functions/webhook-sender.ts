import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { clockFrom } from '#lib/clock';
import type { WebhookMessage } from '#lib/domain/webhooks/messages';
import { deliverMessage } from '#lib/domain/webhooks/sender';
import { httpTransport } from '#lib/jobs/webhook-transport';
import { logger } from '#lib/log';
import { webhookAttempts } from '#lib/store/webhooks/attempts';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookConfig } from '#lib/webhook-config';

/**
 * The webhook sender: a batch of the webhook queue's messages, each attempted at once and side by side,
 * so that one endpoint's 15 seconds hold back no other message of the batch. An attempt that fails is
 * recorded with its next attempt (the outbox brings it back then), not retried through the queue; a
 * message whose recording failed is handed back to the queue (a batch item failure).
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const settings = webhookConfig();
  const ports = {
    outbox: webhookAttempts,
    endpoints: webhookEndpointStore,
    transport: httpTransport({ allowLoopback: settings.webhookAllowLoopback }, settings.webhookDnsServers),
  };
  const clock = clockFrom(Date.now());
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      const message = JSON.parse(record.body) as WebhookMessage;
      try {
        const outcome = await deliverMessage(ports, message, clock);
        // One line per attempt that failed: the failing-endpoints alarm counts them.
        if (outcome === 'retrying' || outcome === 'failed')
          logger.warn('webhook attempt failed', {
            webhookId: message.webhookId,
            messageId: message.messageId,
            outcome,
          });
        return undefined;
      } catch (error) {
        logger.error('webhook send failed', { messageId: message.messageId, error: (error as Error).name });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: failures.filter((failure) => failure !== undefined) };
}
