import { configureSelfService } from '#lib/domain/self-service/self-service';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { configureSelfServiceInput, embedTenantPath } from '#lib/http/schemas/tenant-settings';
import { configureEmbedTenantRoute } from '#lib/routes';
import { selfServiceTenants } from '#lib/store/self-service/self-service';

/** PATCH /v1/embed/tenants/{embedTenantName}: allow and bound the tenant's self-service subscriptions. */
export const handler = createHandler({
  route: configureEmbedTenantRoute,
  access: 'admin',
  params: embedTenantPath,
  body: jsonBody(configureSelfServiceInput),
  operation: ({ params, body }) => configureSelfService(selfServiceTenants, params.embedTenantName, body),
});
