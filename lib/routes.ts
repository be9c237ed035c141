/**
 * The API's routes, declared once: the local HTTP adapter serves them and the CDK stack creates one
 * API Gateway route and one Lambda function (`functions/<operation>.ts`) for each.
 */
export const routes = [
  {
    operation: 'update-notification',
    method: 'PUT',
    path: '/v1/deployments/{deploymentId}/notifications/{id}',
  },
  {
    operation: 'add-recipients',
    method: 'POST',
    path: '/v1/deployments/{deploymentId}/notifications/{id}/recipients',
  },
  { operation: 'set-dashboard-embedding', method: 'PATCH', path: '/v1/embed/dashboard/{publicId}' },
  { operation: 'get-embedded-dashboard', method: 'GET', path: '/v1/embed/dashboard/{publicId}' },
  {
    operation: 'send-notification',
    method: 'POST',
    path: '/v1/deployments/{deploymentId}/notifications/{id}/send',
  },
  { operation: 'list-runs', method: 'GET', path: '/v1/deployments/{deploymentId}/notifications/{id}/runs' },
  {
    operation: 'list-deliveries',
    method: 'GET',
    path: '/v1/deployments/{deploymentId}/notifications/{id}/runs/{runId}/deliveries',
  },
  { operation: 'list-notifications', method: 'GET', path: '/v1/deployments/{deploymentId}/notifications' },
  { operation: 'create-notification', method: 'POST', path: '/v1/deployments/{deploymentId}/notifications' },
  { operation: 'get-notification', method: 'GET', path: '/v1/deployments/{deploymentId}/notifications/{id}' },
  {
    operation: 'delete-notification',
    method: 'DELETE',
    path: '/v1/deployments/{deploymentId}/notifications/{id}',
  },
  {
    operation: 'list-recipients',
    method: 'GET',
    path: '/v1/deployments/{deploymentId}/notifications/{id}/recipients',
  },
  {
    operation: 'remove-recipients',
    method: 'DELETE',
    path: '/v1/deployments/{deploymentId}/notifications/{id}/recipients',
  },
  { operation: 'get-api-spec', method: 'GET', path: '/v1/spec' },
  {
    operation: 'retry-run',
    method: 'POST',
    path: '/v1/deployments/{deploymentId}/notifications/{id}/runs/{runId}/retry',
  },
  { operation: 'report-delivery-outcome', method: 'POST', path: '/v1/deliveries/{jobId}/outcome' },
  { operation: 'preview-schedule', method: 'POST', path: '/v1/schedules/preview' },
  { operation: 'unsubscribe', method: 'POST', path: '/v1/unsubscribe' },
  { operation: 'get-unsubscribe-page', method: 'GET', path: '/v1/unsubscribe' },
] as const;

export type Route = (typeof routes)[number];
export type Operation = Route['operation'];

/** `PUT /v1/...`: API Gateway's name for a route, also the event's `routeKey`. */
export const routeKey = (route: Route) => `${route.method} ${route.path}`;
