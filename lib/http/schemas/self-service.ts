import * as z from 'zod/mini';
import type { Principal } from '#lib/domain/principal';
import { isEmail } from '#lib/domain/recipients/recipients-resolution';
import type { CreateSubscriptionInput, Subscriber } from '#lib/domain/self-service/self-service';
import { ValidationError } from '#lib/errors';
import { nullMeansOmitted, pathId } from '#lib/http/schemas/common';
import { keyName } from '#lib/http/schemas/names';
import { updateNotificationInput } from '#lib/http/schemas/notifications';
import { recipientInput } from '#lib/http/schemas/recipients';
import { keyPartLimits } from '#lib/limits';

/**
 * The request shapes of self-service subscriptions, and the embed token's claims as their recipient (the
 * tenant's settings are in tenant-settings.ts, out of the embed user's bundles).
 */

export const subscriptionPath = z.strictObject({ id: pathId });

/** What an embed user may set of their subscription: the schedule, the format, filters and time grains. */
const { scheduleType, customCron, minute, hour, dayOfWeek, dayOfMonth, timezone } =
  updateNotificationInput.def.shape;
export const subscriptionShape = {
  scheduleType,
  customCron,
  minute,
  hour,
  dayOfWeek,
  dayOfMonth,
  timezone,
  notificationFormat: updateNotificationInput.def.shape.notificationFormat,
  filters: updateNotificationInput.def.shape.filters,
  timeGrains: updateNotificationInput.def.shape.timeGrains,
};

export const createSubscriptionInput = nullMeansOmitted(
  z.strictObject({
    ...subscriptionShape,
    scheduleType: updateNotificationInput.def.shape.scheduleType.def.innerType.def.innerType,
    dashboardPublicId: keyName(keyPartLimits.publicId),
  }),
) satisfies z.ZodMiniType<CreateSubscriptionInput>;

/** The embed caller of a route whose access policy admits embed tokens alone. */
export function embedCallerOf(principal: Principal): Subscriber['principal'] {
  if (principal.kind !== 'embed') throw new Error('Self-service routes take embed tokens only');
  return principal;
}

/**
 * The embed user as their token describes them, held to the rules of an embed recipient: the
 * token's `email`, else its `sub` when that is an e-mail (else 400), and its `securityContext`,
 * `userAttributes` and `groups` within the recipient limits (else 400 naming the claim).
 */
export function subscriberOf(caller: Principal): Subscriber {
  const principal = embedCallerOf(caller);
  const claims = principal.claims ?? {};
  const parsed = recipientInput.safeParse({
    type: 'EMBED_USER',
    embedTenantName: principal.tenant,
    externalId: principal.externalId,
    ...claims,
  });
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((issue) => ({
        path: ['token', ...issue.path].join('.'),
        message: issue.message,
      })),
    );
  }
  const item = parsed.data;
  if (item.type !== 'EMBED_USER') throw new Error('An embed token classified as another recipient');
  const email = item.email ?? (isEmail(item.externalId) ? item.externalId : undefined);
  if (email === undefined) {
    throw new ValidationError([
      {
        path: 'token.email',
        message: 'the embed token carries no e-mail: no email claim, and sub is not an e-mail',
      },
    ]);
  }
  const { securityContext, userAttributes, groups } = item;
  return {
    principal,
    email,
    properties: {
      ...(securityContext !== undefined && { securityContext }),
      ...(userAttributes !== undefined && { userAttributes }),
      ...(groups !== undefined && { groups }),
    },
  };
}
