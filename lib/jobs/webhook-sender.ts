import type { Clock } from '#lib/domain/clock';
import type { WebhookMessage } from '#lib/domain/webhooks/messages';
import { deliverMessage, fanOutEvent, type SenderPorts } from '#lib/domain/webhooks/sender';

/**
 * The sender's pass: due events become their messages, and due messages go out in one lane per
 * endpoint. Lanes run side by side and a pass does not wait for a busy lane: an endpoint that takes
 * 2 seconds (or 15) per answer delays only its own messages, never another endpoint's.
 */

/** Due entries one pass reads. */
const DUE_PER_PASS = 200;
/** Messages a lane takes per pass: the rest of a backlog waits for the next pass, not the other lanes. */
const MESSAGES_PER_LANE = 5;

const laneOf = (message: WebhookMessage) => `${message.deploymentId}/${message.webhookId}`;

export interface WebhookSender {
  /** Reads what is due and starts the lanes of endpoints that are not busy; resolves once they have started. */
  pass(): Promise<{ events: number; started: number }>;
  /** Resolves when every lane running has finished. */
  idle(): Promise<void>;
}

export function webhookSender(ports: SenderPorts, clock: Clock, log: (line: string) => void): WebhookSender {
  const lanes = new Map<string, Promise<void>>();

  const runLane = async (messages: WebhookMessage[]) => {
    for (const message of messages) {
      const outcome = await deliverMessage(ports, message, clock);
      if (outcome !== 'skipped') log(`webhook ${message.messageId} (${message.type}) → ${outcome}`);
    }
  };

  return {
    async pass() {
      const work = await ports.outbox.due(clock.now(), DUE_PER_PASS);
      const messages: WebhookMessage[] = [];
      let events = 0;
      for (const entry of work) {
        if (entry.kind === 'message') messages.push(entry.message);
        else {
          messages.push(...(await fanOutEvent(ports, entry.event, clock.now())));
          events++;
        }
      }
      const byLane = Map.groupBy(messages, laneOf);
      let started = 0;
      for (const [lane, laneMessages] of byLane) {
        if (lanes.has(lane)) continue;
        const running = runLane(laneMessages.slice(0, MESSAGES_PER_LANE))
          .catch((error: unknown) => log(`webhook lane ${lane} failed: ${String(error)}`))
          .finally(() => lanes.delete(lane));
        lanes.set(lane, running);
        started++;
      }
      return { events, started };
    },
    async idle() {
      while (lanes.size > 0) await Promise.all(lanes.values());
    },
  };
}
