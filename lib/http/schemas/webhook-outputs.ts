import * as z from 'zod/mini';
import type { Page } from '#lib/domain/paging';
import { type CreatedWebhookDto, type WebhookDto, webhookStatuses } from '#lib/domain/webhooks/endpoints';
import { EVERY_EVENT, webhookEventTypes } from '#lib/domain/webhooks/event-types';
import { messageStatuses, type WebhookMessageDto } from '#lib/domain/webhooks/messages';
import { countOutput, idOutput } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';

/** What the webhook routes answer, for the API description (see notification-outputs.ts). */

const eventType = z.enum(webhookEventTypes);

const webhookShape = {
  id: z.string(),
  deploymentId: idOutput(),
  url: z.string(),
  events: z.array(z.enum([...webhookEventTypes, EVERY_EVENT])),
  description: z.nullable(z.string()),
  status: z.enum(webhookStatuses),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const webhookOutput = z.strictObject(webhookShape) satisfies z.ZodMiniType<WebhookDto>;

export const createdWebhookOutput = z.strictObject({
  ...webhookShape,
  secret: z.string().check(z.describe('whsec_ + base64 of 32 random bytes: shown this once')),
}) satisfies z.ZodMiniType<CreatedWebhookDto>;

export const webhookPageOutput = pageOf(webhookOutput) satisfies z.ZodMiniType<Page<WebhookDto>>;

export const webhookSecretOutput = z.strictObject({
  secret: z
    .string()
    .check(z.describe('The new secret, shown this once; the previous one signs too for 24 hours')),
});

export const webhookMessageOutput = z.strictObject({
  messageId: z.string(),
  type: eventType,
  createdAt: z.string(),
  status: z.enum(messageStatuses),
  attempts: countOutput(),
  lastStatusCode: z.nullable(z.int()),
  lastError: z.nullable(z.string()),
  nextAttemptAt: z.nullable(z.string()),
}) satisfies z.ZodMiniType<WebhookMessageDto>;

export const webhookMessagePageOutput = pageOf(webhookMessageOutput) satisfies z.ZodMiniType<
  Page<WebhookMessageDto>
>;
