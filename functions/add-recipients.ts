import { notificationPath } from '#lib/domain/notification-input';
import { addRecipients } from '#lib/domain/recipients';
import { addRecipientsInput } from '#lib/domain/recipients-input';
import { createHandler } from '#lib/http/create-handler';
import { addRecipientsOutput } from '#lib/http/schemas/api-outputs';
import { recipientRepository } from '#lib/store/recipients';

/** POST /v1/deployments/{deploymentId}/notifications/{id}/recipients: subscribe console and embed users. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  body: addRecipientsInput,
  response: addRecipientsOutput,
  operation: ({ params, body, remainingTimeMs }) =>
    addRecipients(recipientRepository, params, body.recipients, { remainingTimeMs }),
});
