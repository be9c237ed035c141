import * as z from 'zod/mini';
import type { CreateNotificationInput } from '#lib/domain/notifications/notification-lifecycle';
import { scheduleTypes } from '#lib/domain/schedules/schedule-fields';
import { nullish, nullMeansOmitted } from '#lib/http/schemas/common';
import { keyName, positiveInt } from '#lib/http/schemas/names';
import { updateNotificationInput } from '#lib/http/schemas/notifications';
import { keyPartLimits } from '#lib/limits';

/**
 * The request shape of an admin's create, apart from the update's (lib/http/schemas/notifications.ts)
 * so that the functions built on the update's fields (an embed user's own create and update) carry
 * no more of it than they use.
 */

/** A create makes the caller the owner: its body has no `ownerUserId`. */
const { ownerUserId: _ownerOnUpdate, ...createdFields } = updateNotificationInput.def.shape;

/**
 * The update's fields with their ranges and rules, a schedule type that must be given, and the
 * dashboard. A null field is as good as absent: for a new notification a null list is no list.
 */
export const createNotificationInput = nullMeansOmitted(
  z
    .strictObject({
      ...createdFields,
      scheduleType: z.enum(scheduleTypes),
      dashboardId: nullish(positiveInt()),
      dashboardPublicId: nullish(keyName(keyPartLimits.publicId)),
    })
    .check(
      z.superRefine((input, ctx) => {
        const given = (['dashboardId', 'dashboardPublicId'] as const).filter((field) => input[field] != null);
        if (given.length !== 1) {
          ctx.issues.push({
            code: 'custom',
            path: given.length === 0 ? ['dashboardId'] : ['dashboardPublicId'],
            message: 'exactly one of dashboardId and dashboardPublicId is required',
            input,
          });
        }
      }),
    ),
) satisfies z.ZodMiniType<CreateNotificationInput>;
