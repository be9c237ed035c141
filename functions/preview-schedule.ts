import { config } from '#lib/config';
import { previewSchedule } from '#lib/domain/schedule-preview';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { schedulePreviewInput, schedulePreviewOutput } from '#lib/http/schemas/schedules';
import { credentialDirectory } from '#lib/store/users';

/** POST /v1/schedules/preview: the cron, its reading and the next firing instants of schedule fields; nothing stored. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  body: schedulePreviewInput,
  response: schedulePreviewOutput,
  operation: async ({ body }) =>
    previewSchedule(
      body,
      { customCronMinIntervalMinutes: config().customCronMinIntervalMinutes },
      Date.now(),
    ),
});
