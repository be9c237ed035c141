import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { WebhookEndpointReader } from '#lib/domain/webhooks/endpoints';
import type { WebhookMessage } from '#lib/domain/webhooks/messages';
import { fanOutEvent, type WebhookOutbox } from '#lib/domain/webhooks/sender';

/**
 * Deployed, the outbox reaches the sender through a queue: the relay, started every minute, reads what
 * is due by the due index (events and messages), makes each event's messages, claims each due message
 * for `RELAY_CLAIM_MS` (so the next minute's relay leaves it alone) and puts it on the queue. Senders
 * take the queue's messages in batches. A message lost anywhere on the way (a relay that died after
 * its claim, a sender that died mid-batch, a batch in the dead-letter queue) is due again when its
 * claim ends, and relayed again: the outbox in the table, not the queue, is what keeps it.
 */

/** A relayed message waits this long on the queue and in a sender before it is relayed again. */
const RELAY_CLAIM_MS = 5 * 60_000;
/** Due entries one relay reads: a minute's worth at a busy pace; the rest waits for the next minute. */
const DUE_PER_RELAY = 1000;
const SQS_BATCH = 10;

export type MessageQueue = (messages: WebhookMessage[]) => Promise<void>;

export function sqsMessageQueue(queueUrl: string, client = new SQSClient({})): MessageQueue {
  return async (messages) => {
    for (let start = 0; start < messages.length; start += SQS_BATCH) {
      const batch = messages.slice(start, start + SQS_BATCH);
      const { Failed = [] } = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((message, i) => ({ Id: String(i), MessageBody: JSON.stringify(message) })),
        }),
      );
      // What the queue refused stays claimed, and is relayed again when the claim ends.
      if (Failed.length > 0) throw new Error(`The webhook queue refused ${Failed.length} message(s)`);
    }
  };
}

export async function relayDue(
  ports: { outbox: WebhookOutbox; endpoints: WebhookEndpointReader; queue: MessageQueue },
  now: number,
): Promise<{ events: number; relayed: number }> {
  const due = await ports.outbox.due(now, DUE_PER_RELAY);
  const messages: WebhookMessage[] = [];
  let events = 0;
  for (const work of due) {
    if (work.kind === 'message') messages.push(work.message);
    else {
      messages.push(...(await fanOutEvent(ports, work.event, now)));
      events++;
    }
  }
  const claimed = (
    await Promise.all(messages.map((message) => ports.outbox.claim(message, now + RELAY_CLAIM_MS)))
  ).filter((message) => message !== undefined);
  await ports.queue(claimed);
  return { events, relayed: claimed.length };
}
