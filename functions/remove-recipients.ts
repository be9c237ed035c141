import { removeRecipients } from '#lib/domain/notification-lifecycle';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { removeRecipientsInput } from '#lib/http/schemas/lifecycle';
import { notificationPath } from '#lib/http/schemas/paths';
import { removeRecipients as remove } from '#lib/store/recipient-lists';
import { credentialDirectory } from '#lib/store/users';

/** DELETE /v1/deployments/{deploymentId}/notifications/{id}/recipients: unsubscribe; not subscribed is fine. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  body: removeRecipientsInput,
  success: { status: 204 },
  operation: ({ params, body }) => removeRecipients({ removeRecipients: remove }, params, body.recipients),
});
