import type { Page, PageRequest, PageWindow, StoredPage } from '#lib/domain/paging';
import { pageWindow, toPage } from '#lib/domain/paging';
import {
  WEBHOOK_ID_PATTERN,
  type WebhookEndpointReader,
  type WebhookRef,
  webhookNotFound,
} from '#lib/domain/webhooks/endpoints';
import { toMessageDto, type WebhookMessage, type WebhookMessageDto } from '#lib/domain/webhooks/messages';
import { NotFoundError } from '#lib/errors';

/** An endpoint's messages: listed newest first, and sent once more on request. */
export interface WebhookMessageStore {
  messagesPage(ref: WebhookRef, window: PageWindow<WebhookMessage>): Promise<StoredPage<WebhookMessage>>;
  /** Makes the message pending and due at `now`; the message as it then is, or undefined when there is none. */
  sendAgain(ref: WebhookRef, messageId: string, now: number): Promise<WebhookMessage | undefined>;
}

async function checkEndpoint(endpoints: WebhookEndpointReader, ref: WebhookRef): Promise<void> {
  const exists =
    WEBHOOK_ID_PATTERN.test(ref.webhookId) &&
    (await endpoints.all(ref.deploymentId)).some((endpoint) => endpoint.id === ref.webhookId);
  if (!exists) throw webhookNotFound(ref);
}

export async function listWebhookMessages(
  stores: { endpoints: WebhookEndpointReader; messages: Pick<WebhookMessageStore, 'messagesPage'> },
  ref: WebhookRef,
  page: PageRequest,
): Promise<Page<WebhookMessageDto>> {
  await checkEndpoint(stores.endpoints, ref);
  const stored = await stores.messages.messagesPage(ref, pageWindow(page, toMessageDto));
  return toPage(stored, page, toMessageDto);
}

/** Sends a message once more, now (202): pending again, whatever became of it before. */
export async function retryWebhookMessage(
  stores: { endpoints: WebhookEndpointReader; messages: Pick<WebhookMessageStore, 'sendAgain'> },
  ref: WebhookRef & { messageId: string },
  now: number,
): Promise<WebhookMessageDto> {
  await checkEndpoint(stores.endpoints, ref);
  const message = await stores.messages.sendAgain(ref, ref.messageId, now);
  if (!message) throw new NotFoundError(`Message ${ref.messageId} of webhook ${ref.webhookId}`);
  return toMessageDto(message);
}
