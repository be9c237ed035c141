import type { WebhookOutbox } from '#lib/domain/webhooks/sender';
import { replaceMessage } from '#lib/store/webhooks/message-items';

/** Claims and attempts alone: what a deployed sender's bundle holds. */
export const webhookAttempts: Pick<WebhookOutbox, 'claim' | 'recordAttempt'> = {
  async claim(message, until) {
    const claimed = { ...message, nextAttemptAt: new Date(until).toISOString() };
    return (await replaceMessage(message, claimed)) ? claimed : undefined;
  },

  async recordAttempt(claimed, after) {
    await replaceMessage(claimed, after);
  },
};
