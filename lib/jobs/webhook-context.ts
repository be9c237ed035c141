import { randomBytes } from 'node:crypto';
import type { WebhookContext } from '#lib/domain/webhooks/endpoints';
import { SECRET_BYTES, secretOf } from '#lib/domain/webhooks/signing';
import { resolveHost } from '#lib/jobs/webhook-transport';
import type { WebhookConfig } from '#lib/webhook-config';

/** What making and checking an endpoint takes from this machine: its clock, its randomness, its resolver. */
export function webhookContext(
  settings: Pick<WebhookConfig, 'webhookAllowLoopback' | 'webhookDnsServers'>,
  now: number,
): WebhookContext {
  return {
    now,
    newWebhookId: () => `wh_${randomBytes(12).toString('hex')}`,
    newSecret: () => secretOf(randomBytes(SECRET_BYTES)),
    policy: { allowLoopback: settings.webhookAllowLoopback },
    resolve: (host) => resolveHost(host, settings.webhookDnsServers),
  };
}
