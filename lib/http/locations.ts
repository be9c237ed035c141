/** Where a created resource lives, for the `Location` header. */
export const notificationLocation = (notification: { deploymentId: number; id: number }) =>
  `/v1/deployments/${notification.deploymentId}/notifications/${notification.id}`;
