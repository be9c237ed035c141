import { clockFrom } from '#lib/clock';
import { type WebhookSender, webhookSender } from '#lib/jobs/webhook-sender';
import { httpTransport } from '#lib/jobs/webhook-transport';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { webhookConfig } from '#lib/webhook-config';

/** Often enough that a message leaves about as soon as its change is made. */
const INTERVAL_MS = 250;

/** The sender against the configured table, at the configured URL policy. */
function localWebhookSender(print: (line: string) => void): WebhookSender {
  const policy = { allowLoopback: webhookConfig().webhookAllowLoopback };
  return webhookSender(
    {
      outbox: webhookOutbox,
      endpoints: webhookEndpointStore,
      transport: httpTransport(policy, webhookConfig().webhookDnsServers),
    },
    clockFrom(Date.now()),
    print,
  );
}

/**
 * The deployed sender's stand-in under `npm start`: a pass every quarter second, so messages go out
 * at once. Passes never overlap (lanes to slow endpoints run on beside them); a failed pass is printed
 * and the next goes on.
 */
export function startWebhookLoop(print: (line: string) => void): { stop: () => Promise<void> } {
  const sender = localWebhookSender(print);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    try {
      await sender.pass();
    } catch (error) {
      print(`webhook pass failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!stopped) timer = setTimeout(run, INTERVAL_MS);
  };
  timer = setTimeout(run, 0);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await sender.idle();
    },
  };
}
