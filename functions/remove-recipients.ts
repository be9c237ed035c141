import { auditContextOf } from '#lib/domain/audit/audit';
import { removeRecipients } from '#lib/domain/recipients/recipient-lists';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { removeRecipientsInput } from '#lib/http/schemas/lifecycle';
import { notificationPath } from '#lib/http/schemas/paths';
import { removeRecipientsRoute } from '#lib/routes';
import { recipientRemoval } from '#lib/store/recipients/recipient-lists';

/** DELETE /v1/deployments/{deploymentId}/notifications/{id}/recipients: unsubscribe; not subscribed is fine. */
export const handler = createHandler({
  route: removeRecipientsRoute,
  access: 'admin',
  params: notificationPath,
  body: jsonBody(removeRecipientsInput),
  success: { status: 204 },
  operation: ({ params, body, principal, requestId }) =>
    removeRecipients(
      recipientRemoval,
      params,
      body.recipients,
      auditContextOf(principal, requestId),
      Date.now(),
    ),
});
