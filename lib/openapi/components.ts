import type * as z from 'zod/mini';
import { dashboardEmbeddingOutput, embeddedDashboardOutput } from '#lib/http/schemas/embedding-outputs';
import { removeRecipientsInput } from '#lib/http/schemas/lifecycle';
import { createNotificationInput } from '#lib/http/schemas/notification-create';
import { notificationOutput, notificationPageOutput } from '#lib/http/schemas/notification-outputs';
import {
  dashboardFilterInput,
  dashboardMemberSwitcherInput,
  dashboardTimeGrainInput,
  updateNotificationInput,
} from '#lib/http/schemas/notifications';
import { pageInfoOutput } from '#lib/http/schemas/paging';
import {
  addRecipientsOutput,
  recipientOutput,
  recipientPageOutput,
} from '#lib/http/schemas/recipient-outputs';
import { addRecipientsInput, recipientInput } from '#lib/http/schemas/recipients';
import { deliveryOutput, deliveryPage, runOutput, runPage } from '#lib/http/schemas/run-outputs';
import { suppressionOutput, suppressionPage } from '#lib/http/schemas/suppression-outputs';
import { apiDescriptionOutput, errorOutput } from '#lib/openapi/document-schemas';

/**
 * The names of the API description's schema components, the platform's own where it has one, so
 * that a client generated from either description names its types alike. A route's request body or
 * answer that is not named here still becomes a component, named after its operation
 * (`<Operation>Input`, `<Operation>Response`): every schema is referenced, none inline.
 */

/** Shapes as requests carry them (defaults optional, `null` where it means "omitted"). */
export const inputComponents: readonly (readonly [z.ZodMiniType, string])[] = [
  [createNotificationInput, 'CreateNotificationInput'],
  [updateNotificationInput, 'UpdateNotificationInput'],
  [dashboardFilterInput, 'DashboardFilterInput'],
  [dashboardTimeGrainInput, 'DashboardTimeGrainInput'],
  [dashboardMemberSwitcherInput, 'DashboardMemberSwitcherInput'],
  [addRecipientsInput, 'AddNotificationRecipientsInput'],
  [recipientInput, 'NotificationRecipientInput'],
  [removeRecipientsInput, 'RemoveNotificationRecipientsInput'],
];

/** Shapes as answers carry them. */
export const outputComponents: readonly (readonly [z.ZodMiniType, string])[] = [
  [errorOutput, 'Error'],
  [apiDescriptionOutput, 'ApiDescription'],
  [notificationOutput, 'NotificationDto'],
  [notificationPageOutput, 'NotificationsListResponse'],
  [dashboardFilterInput, 'DashboardFilter'],
  [dashboardTimeGrainInput, 'DashboardTimeGrain'],
  [dashboardMemberSwitcherInput, 'DashboardMemberSwitcher'],
  [pageInfoOutput, 'PageInfo'],
  [recipientOutput, 'NotificationRecipient'],
  [recipientPageOutput, 'NotificationRecipientsListResponse'],
  [addRecipientsOutput, 'NotificationRecipientsMutationResponse'],
  [dashboardEmbeddingOutput, 'DashboardEmbeddingResponse'],
  [embeddedDashboardOutput, 'EmbeddedDashboard'],
  [runOutput, 'RunDto'],
  [runPage, 'RunsListResponse'],
  [deliveryOutput, 'DeliveryDto'],
  [deliveryPage, 'DeliveriesListResponse'],
  [suppressionOutput, 'Suppression'],
  [suppressionPage, 'SuppressionsListResponse'],
];
