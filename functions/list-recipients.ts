import { listRecipients } from '#lib/domain/recipients/recipient-lists';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { notificationPath } from '#lib/http/schemas/paths';
import { listRecipientsRoute } from '#lib/routes';
import { recipientListing } from '#lib/store/recipients/recipient-lists';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/recipients: a page, newest subscription first. */
export const handler = createHandler({
  route: listRecipientsRoute,
  access: 'admin',
  params: notificationPath,
  query: pagingQuery,
  operation: ({ params, query }) => listRecipients(recipientListing, params, query),
});
