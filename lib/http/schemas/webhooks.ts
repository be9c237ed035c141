import * as z from 'zod/mini';
import {
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  type WebhookChange,
  type WebhookInput,
  webhookStatuses,
} from '#lib/domain/webhooks/endpoints';
import { EVERY_EVENT, webhookEventTypes } from '#lib/domain/webhooks/event-types';
import { MAX_WEBHOOK_URL_LENGTH } from '#lib/domain/webhooks/url-policy';
import { compactTextUpTo, pathId, textUpTo } from '#lib/http/schemas/common';

/** The requests of the webhook routes (their answers are in webhook-outputs.ts). */

const webhookUrl = textUpTo(MAX_WEBHOOK_URL_LENGTH).check(
  z.describe(
    `An https:// URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters whose host is and resolves to public addresses only (locally, http:// to the loopback too)`,
  ),
);

const events = z.array(z.enum([...webhookEventTypes, EVERY_EVENT])).check(
  z.minLength(1, 'must list at least one event type, or "*"'),
  z.maxLength(webhookEventTypes.length + 1, `must have at most ${webhookEventTypes.length + 1} items`),
  z.refine((list) => new Set(list).size === list.length, 'must not list an event type twice'),
  z.describe('The event types to receive, or ["*"] for every type'),
);

const description = z.nullable(compactTextUpTo(MAX_WEBHOOK_DESCRIPTION_LENGTH));

export const createWebhookInput = z.strictObject({
  url: webhookUrl,
  events,
  description: z.optional(description),
}) satisfies z.ZodMiniType<WebhookInput>;

export const updateWebhookInput = z.strictObject({
  url: z.optional(webhookUrl),
  events: z.optional(events),
  description: z.optional(description),
  status: z.optional(z.enum(webhookStatuses)),
}) satisfies z.ZodMiniType<WebhookChange>;

/** Opaque to clients: an id of a form the service never issues is an unknown endpoint (404), not a 400. */
const opaqueId = z.string().check(z.maxLength(200, 'must be at most 200 characters'));

export const webhookPath = z.strictObject({ deploymentId: pathId, webhookId: opaqueId });

export const webhookMessagePath = z.strictObject({
  deploymentId: pathId,
  webhookId: opaqueId,
  messageId: opaqueId,
});
