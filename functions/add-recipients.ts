import { addRecipients } from '#lib/domain/recipients';
import { createHandler } from '#lib/http/create-handler';
import { notificationPath } from '#lib/http/schemas/notifications';
import { addRecipientsInput } from '#lib/http/schemas/recipients';
import { recipientRepository } from '#lib/store/recipients';

/** POST /v1/deployments/{deploymentId}/notifications/{id}/recipients: subscribe console and embed users. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  body: addRecipientsInput,
  operation: ({ params, body, remainingTimeMs }) =>
    addRecipients(recipientRepository, params, body.recipients, { remainingTimeMs }),
});
