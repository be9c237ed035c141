import { httpUrl, type Parse, refuseInvalid, textOfAtLeast, variablesOf, wholeNumber } from '#lib/config';

/**
 * The webhook settings, read from the environment once per container like lib/config.ts's, by the
 * functions that record or send webhook messages only: the others do without their code.
 */

export interface WebhookConfig {
  /** How long a container trusts what it read of a deployment's webhook subscriptions. */
  webhookSubscriptionCacheMs: number;
  /** `npm start` only: webhooks may point at the loopback over http:// (deployed, never). */
  webhookAllowLoopback: boolean;
  /** Deployed: the queue the webhook relay puts due messages on for the sender. */
  webhookQueueUrl: string | undefined;
  /** Name servers (`address[:port]`, comma-separated) webhook hosts are resolved with; unset, the system's resolver. */
  webhookDnsServers: string | undefined;
}

const flag: Parse<boolean> = (value) => (value === 'true' ? true : value === 'false' ? false : undefined);

function readWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  const { read, invalid } = variablesOf(env);
  const settings = {
    webhookSubscriptionCacheMs: (read('WEBHOOK_SUBSCRIPTION_CACHE_SECONDS', wholeNumber()) ?? 10) * 1000,
    webhookAllowLoopback: read('WEBHOOK_ALLOW_LOOPBACK', flag) ?? false,
    webhookDnsServers: read('WEBHOOK_DNS_SERVERS', textOfAtLeast(1)),
    webhookQueueUrl: read('WEBHOOK_QUEUE_URL', httpUrl),
  };
  refuseInvalid(invalid);
  return settings;
}

let cached: WebhookConfig | undefined;

/** The webhook settings of this container, parsed on first use. */
export function webhookConfig(): WebhookConfig {
  cached ??= readWebhookConfig();
  return cached;
}
