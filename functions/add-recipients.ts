import { auditContextOf, recipientsEvent } from '#lib/domain/audit/audit';
import { addRecipients } from '#lib/domain/recipients/recipients';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { notificationPath } from '#lib/http/schemas/paths';
import { addRecipientsInput } from '#lib/http/schemas/recipients';
import { addRecipientsRoute } from '#lib/routes';
import { addRecipientsStore } from '#lib/store/recipients/recipients';

/** POST /v1/deployments/{deploymentId}/notifications/{id}/recipients: subscribe console and embed users. */
export const handler = createHandler({
  route: addRecipientsRoute,
  access: 'admin',
  params: notificationPath,
  body: jsonBody(addRecipientsInput),
  operation: async ({ params, body, principal, requestId, recordMetric }) => {
    const audited = recipientsEvent(
      auditContextOf(principal, requestId),
      params,
      'recipients_added',
      Date.now(),
    );
    const result = await addRecipients(addRecipientsStore, params, body.recipients, { audited });
    recordMetric('RecipientsCreated', result.createdRecipients.length);
    recordMetric('RecipientsUpdated', result.updatedRecipients.length);
    return result;
  },
});
