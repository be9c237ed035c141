import { listNotificationEvents } from '#lib/domain/audit/audit-lists';
import { createHandler } from '#lib/http/create-handler';
import { pagingQuery } from '#lib/http/schemas/paging';
import { notificationPath } from '#lib/http/schemas/paths';
import { listNotificationEventsRoute } from '#lib/routes';
import { auditListing } from '#lib/store/audit/audit-events';

/** GET /v1/deployments/{deploymentId}/notifications/{id}/events: a page of its audit events, newest first. */
export const handler = createHandler({
  route: listNotificationEventsRoute,
  access: 'admin',
  params: notificationPath,
  query: pagingQuery,
  operation: ({ params, query }) => listNotificationEvents(auditListing, params, query),
});
