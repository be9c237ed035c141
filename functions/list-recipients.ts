import { listRecipients } from '#lib/domain/notification-lifecycle';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { notificationPath } from '#lib/http/schemas/paths';
import { recipientPageOutput } from '#lib/http/schemas/recipient-outputs';
import { listRecipients as list } from '#lib/store/recipient-lists';
import { credentialDirectory } from '#lib/store/users';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/recipients: a page, newest subscription first. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  query: pagingQuery,
  response: recipientPageOutput,
  operation: ({ params, query }) => listRecipients({ listRecipients: list }, params, query),
});
