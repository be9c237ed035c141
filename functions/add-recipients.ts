import { addRecipients } from '#lib/domain/recipients';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { notificationPath } from '#lib/http/schemas/paths';
import { addRecipientsOutput } from '#lib/http/schemas/recipient-outputs';
import { addRecipientsInput } from '#lib/http/schemas/recipients';
import { recordBusinessMetric } from '#lib/metrics';
import { recipientRepository } from '#lib/store/recipients';
import { credentialDirectory } from '#lib/store/users';

/** POST /v1/deployments/{deploymentId}/notifications/{id}/recipients: subscribe console and embed users. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  body: addRecipientsInput,
  response: addRecipientsOutput,
  operation: async ({ params, body, remainingTimeMs }) => {
    const result = await addRecipients(recipientRepository, params, body.recipients, { remainingTimeMs });
    recordBusinessMetric('RecipientsCreated', result.createdRecipients.length);
    recordBusinessMetric('RecipientsUpdated', result.updatedRecipients.length);
    return result;
  },
});
