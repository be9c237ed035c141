import { previewSchedule } from '#lib/domain/schedules/schedule-preview';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { schedulePreviewInput } from '#lib/http/schemas/schedules';
import { previewScheduleRoute } from '#lib/routes';

/** POST /v1/schedules/preview: the cron, its reading and the next firing instants of schedule fields; nothing stored. */
export const handler = createHandler({
  route: previewScheduleRoute,
  access: 'admin',
  body: jsonBody(schedulePreviewInput),
  operation: async ({ body, settings }) => previewSchedule(body, settings, Date.now()),
});
