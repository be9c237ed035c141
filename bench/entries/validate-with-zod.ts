import middy from '@middy/core';
import { jsonBody } from '#lib/http/json-body';
import { updateNotificationInput } from '#lib/http/schemas/notifications';
import { notificationPath } from '#lib/http/schemas/paths';
import { validate } from '#lib/http/validate';

/**
 * Request validation, option 1: our zod/mini middleware over the PUT's own schemas. Only parsing and
 * validation, no authorization or storage, so that it compares with the @middy/validator entries.
 */
export const handler = middy()
  .use(jsonBody({ optional: true }))
  .use(validate({ params: notificationPath, body: updateNotificationInput }))
  .handler(async () => ({ statusCode: 200, body: '{}' }));
