/** Where a created resource lives, for the `Location` header. */
export const notificationLocation = (notification: { deploymentId: number; id: number }) =>
  `/v1/deployments/${notification.deploymentId}/notifications/${notification.id}`;
export const suppressionLocation = (suppression: { deploymentId: number; email: string }) =>
  `/v1/deployments/${suppression.deploymentId}/suppressions/${encodeURIComponent(suppression.email)}`;

export const webhookLocation = (webhook: { deploymentId: number; id: string }) =>
  `/v1/deployments/${webhook.deploymentId}/webhooks/${webhook.id}`;
