import type { Clock } from '#lib/domain/clock';
import type { WebhookMessage } from '#lib/domain/webhooks/messages';
import { type DueWork, deliverMessage, fanOutEvent, type SenderPorts } from '#lib/domain/webhooks/sender';

/**
 * The sender's pass: due events become their messages, and due messages go out in one lane per
 * endpoint. Lanes run side by side and a pass does not wait for a busy lane: an endpoint that takes
 * 2 seconds (or 15) per answer delays only its own messages, never another endpoint's.
 */

/** Due entries one read takes. */
const DUE_PER_READ = 200;
/**
 * Reads a pass may make, each after the last: the oldest entries may all be one endpoint's backlog
 * (1,000 messages to an endpoint that answers in 2 s), and a pass that stopped at them would leave the
 * other endpoints' messages behind that backlog until it drains. Up to 2,000 entries deep are seen.
 */
const READS_PER_PASS = 10;
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
      const byLane = new Map<string, WebhookMessage[]>();
      // A message of a lane running, or of one that has its share already, is passed over.
      const take = (message: WebhookMessage) => {
        const lane = laneOf(message);
        if (lanes.has(lane)) return;
        const taken = byLane.get(lane) ?? [];
        if (taken.length < MESSAGES_PER_LANE) byLane.set(lane, [...taken, message]);
      };
      let events = 0;
      let after: DueWork | undefined;
      for (let read = 0; read < READS_PER_PASS; read++) {
        const work = await ports.outbox.due(clock.now(), DUE_PER_READ, after);
        for (const entry of work) {
          if (entry.kind === 'message') take(entry.message);
          else {
            for (const message of await fanOutEvent(ports, entry.event, clock.now())) take(message);
            events++;
          }
        }
        after = work.at(-1);
        if (work.length < DUE_PER_READ) break;
      }
      let started = 0;
      for (const [lane, laneMessages] of byLane) {
        const running = runLane(laneMessages)
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
