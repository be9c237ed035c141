import type * as z from 'zod/mini';
import { auditEventPage } from '#lib/http/schemas/audit-outputs';
import { unsubscribeOutput } from '#lib/http/schemas/delivery-outputs';
import { dashboardEmbeddingOutput, embeddedDashboardOutput } from '#lib/http/schemas/embedding-outputs';
import { notificationOutput, notificationPageOutput } from '#lib/http/schemas/notification-outputs';
import { addRecipientsOutput, recipientPageOutput } from '#lib/http/schemas/recipient-outputs';
import { deliveryPage, runOutput, runPage } from '#lib/http/schemas/run-outputs';
import { schedulePreviewOutput } from '#lib/http/schemas/schedule-outputs';
import { tenantSelfServiceOutput } from '#lib/http/schemas/self-service-outputs';
import { suppressionOutput, suppressionPage } from '#lib/http/schemas/suppression-outputs';
import {
  createdWebhookOutput,
  webhookMessageOutput,
  webhookMessagePageOutput,
  webhookOutput,
  webhookPageOutput,
  webhookSecretOutput,
} from '#lib/http/schemas/webhook-outputs';
import { apiDescriptionOutput } from '#lib/openapi/document-schemas';
import {
  addRecipientsRoute,
  addSuppressionRoute,
  configureEmbedTenantRoute,
  createEmbedNotificationRoute,
  createNotificationRoute,
  createWebhookRoute,
  getApiSpecRoute,
  getEmbeddedDashboardRoute,
  getEmbedNotificationRoute,
  getNotificationRoute,
  getWebhookRoute,
  listDeliveriesRoute,
  listDeploymentEventsRoute,
  listEmbedNotificationsRoute,
  listNotificationEventsRoute,
  listNotificationsRoute,
  listRecipientsRoute,
  listRunsRoute,
  listSuppressionsRoute,
  listWebhookMessagesRoute,
  listWebhooksRoute,
  pauseNotificationRoute,
  previewScheduleRoute,
  resumeNotificationRoute,
  retryRunRoute,
  retryWebhookMessageRoute,
  rotateWebhookSecretRoute,
  sendNotificationRoute,
  setDashboardEmbeddingRoute,
  unsubscribeRoute,
  updateEmbedNotificationRoute,
  updateNotificationRoute,
  updateWebhookRoute,
} from '#lib/routes';

/**
 * The shape of each JSON answer, by operation, for the API description alone. No function checks its
 * answer against a schema at run time (each schema is tied to the domain type the operation returns
 * with `satisfies`, which the compiler checks), so the schemas live here and no function bundles
 * them: zod's union and paging schemas would cost each 2–3 KB at every cold start.
 */
export const responseSchemas: Readonly<Record<string, z.ZodMiniType>> = {
  [addRecipientsRoute.operation]: addRecipientsOutput,
  [addSuppressionRoute.operation]: suppressionOutput,
  [listSuppressionsRoute.operation]: suppressionPage,
  [createNotificationRoute.operation]: notificationOutput,
  [getApiSpecRoute.operation]: apiDescriptionOutput,
  [getEmbeddedDashboardRoute.operation]: embeddedDashboardOutput,
  [getNotificationRoute.operation]: notificationOutput,
  [listDeliveriesRoute.operation]: deliveryPage,
  [listNotificationsRoute.operation]: notificationPageOutput,
  [listRecipientsRoute.operation]: recipientPageOutput,
  [listRunsRoute.operation]: runPage,
  [listNotificationEventsRoute.operation]: auditEventPage,
  [listDeploymentEventsRoute.operation]: auditEventPage,
  [pauseNotificationRoute.operation]: notificationOutput,
  [previewScheduleRoute.operation]: schedulePreviewOutput,
  [resumeNotificationRoute.operation]: notificationOutput,
  [retryRunRoute.operation]: runOutput,
  [sendNotificationRoute.operation]: runOutput,
  [setDashboardEmbeddingRoute.operation]: dashboardEmbeddingOutput,
  [unsubscribeRoute.operation]: unsubscribeOutput,
  [updateNotificationRoute.operation]: notificationOutput,
  [configureEmbedTenantRoute.operation]: tenantSelfServiceOutput,
  [listEmbedNotificationsRoute.operation]: notificationPageOutput,
  [createEmbedNotificationRoute.operation]: notificationOutput,
  [getEmbedNotificationRoute.operation]: notificationOutput,
  [updateEmbedNotificationRoute.operation]: notificationOutput,
  [createWebhookRoute.operation]: createdWebhookOutput,
  [listWebhooksRoute.operation]: webhookPageOutput,
  [getWebhookRoute.operation]: webhookOutput,
  [updateWebhookRoute.operation]: webhookOutput,
  [rotateWebhookSecretRoute.operation]: webhookSecretOutput,
  [listWebhookMessagesRoute.operation]: webhookMessagePageOutput,
  [retryWebhookMessageRoute.operation]: webhookMessageOutput,
};
