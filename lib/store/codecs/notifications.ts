import * as z from 'zod/mini';
import { type NotificationHold, noHold } from '#lib/domain/governance/governance';
import type {
  Notification,
  NotificationOwner,
  ScheduledNotification,
} from '#lib/domain/notifications/notification';
import { filterOperators, notificationFormats } from '#lib/domain/notifications/notification-fields';
import { cronExpressionOf, type ScheduleState } from '#lib/domain/schedules/schedule';
import { scheduleTypes } from '#lib/domain/schedules/schedule-fields';
import {
  checkItem,
  itemKey,
  MalformedItemError,
  parseJsonAttribute,
  type StoredShape,
  schemaOf,
} from '#lib/store/codecs/stored-item';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { DUE_INDEX, dueIndexKeys } from '#lib/store/dynamo/keys';

/** The fields of a notification, each an attribute of its item besides its key and its `version`. */
const notificationFields = [
  'id',
  'deploymentId',
  'dashboardId',
  'scheduleType',
  'minute',
  'hour',
  'dayOfWeek',
  'dayOfMonth',
  'customCron',
  'timezone',
  'isEnabled',
  'notificationEnabled',
  'notificationFormat',
  'filters',
  'timeGrains',
  'memberSwitchers',
  'notificationAiSummary',
  'owner',
  'hold',
] as const satisfies readonly (keyof Notification)[];

/**
 * Filters, time grains and member switchers hold free-form JSON (a filter's value can be any JSON),
 * kept as JSON text (`filtersJson`, `timeGrainsJson`, `memberSwitchersJson`): every number and key comes back exactly as given, which
 * DynamoDB's own numbers (38 digits, 1e-130..1e126) and maps (32 levels, no empty keys) would not do.
 */
const jsonFields = ['filters', 'timeGrains', 'memberSwitchers'] as const;
type JsonField = (typeof jsonFields)[number];
const isJsonField = (field: string): field is JsonField => jsonFields.some((name) => name === field);

/** The attributes of a notification's item the store writes by name, beside its fields. */
export const notificationAttributes = {
  version: 'version',
  /** The `version` the schedule last changed at (the schedule entry holds the same name). */
  scheduleVersion: 'scheduleVersion',
  /** The count of its consecutive scheduled runs that failed to everyone. */
  failedRuns: 'failedRunStreak',
} as const;

/** The attributes of a schedule entry the store writes by name. */
export const scheduleEntryAttributes = {
  scheduleVersion: 'scheduleVersion',
  signature: 'signature',
  upcoming: 'upcoming',
} as const;

/** The attribute a notification field is stored under. */
export const notificationAttribute = (field: string) => (isJsonField(field) ? `${field}Json` : field);

/** A field's value as its attribute holds it. */
export const encodeNotificationField = (field: string, value: unknown) =>
  isJsonField(field) ? JSON.stringify(value) : value;

/** The attribute values of a notification's fields; an absent or null field has none. */
function attributesOf(notification: Notification): Item {
  const attributes: Item = {};
  for (const field of notificationFields) {
    const value = notification[field];
    if (value === undefined || value === null) continue;
    attributes[notificationAttribute(field)] = encodeNotificationField(field, value);
  }
  return attributes;
}

/**
 * `createdAt` is when the item was first written; the index entries follow from its id, dashboard and owner.
 * What the schedule makes (its reading, its upcoming instants) is in the schedule entry beside it
 * (encodeScheduleEntry), so that the dispatcher's moves never rewrite this item.
 */
export function encodeNotification(
  notification: Notification,
  version = 0,
  createdAt = new Date().toISOString(),
): Item {
  return {
    ...keys.notification(notification.deploymentId, notification.id),
    ...indexKeys.notification(notification.deploymentId, notification.id, notification.dashboardId),
    ...indexKeys.ownedNotification(notification.deploymentId, notification.id, notification.owner),
    entity: 'NOTIFICATION',
    ...attributesOf(notification),
    createdAt,
    version,
  };
}

/** A notification's schedule entry, as its writers store it and the dispatcher moves it. */
export interface ScheduleEntry extends ScheduleState {
  /** The notification's `scheduleVersion` the state was computed from (0 for one never changed). */
  scheduleVersion: number;
  /** What decides the instants (scheduleSignature): a state of the same schedule keeps them. */
  signature: string;
  /** Its key in the due index (the first upcoming instant); undefined when nothing is upcoming. */
  dueKey: string | undefined;
}

/** The due-index attributes of an entry whose first upcoming instant is `instant`. */
export const dueAttributes = (deploymentId: number, notificationId: number, instant: number | undefined) =>
  instant === undefined ? undefined : dueIndexKeys.notification(deploymentId, notificationId, instant);

/**
 * The schedule entry of a notification: the schedule's reading, its upcoming instants and, while one
 * is ahead, its entry in the due index under the first of them.
 */
export function encodeScheduleEntry(
  target: { deploymentId: number; id: number },
  entry: Omit<ScheduleEntry, 'dueKey'>,
): Item {
  return {
    ...keys.scheduleEntry(target.deploymentId, target.id),
    entity: 'SCHEDULE',
    deploymentId: target.deploymentId,
    id: target.id,
    humanReadableSchedule: entry.humanReadableSchedule,
    upcoming: [...entry.upcoming],
    scheduleVersion: entry.scheduleVersion,
    signature: entry.signature,
    ...dueAttributes(target.deploymentId, target.id, entry.upcoming[0]),
  };
}

const scheduleEntryItem = () =>
  z.looseObject({
    humanReadableSchedule: z.string(),
    upcoming: z.array(z.number()),
    scheduleVersion: z.int(),
    signature: z.string(),
    gsi3sk: z.optional(z.string()),
  });

export function decodeScheduleEntry(item: Item): ScheduleEntry {
  const stored = checkItem('schedule entry', scheduleEntryItem, item);
  return {
    humanReadableSchedule: stored.humanReadableSchedule,
    upcoming: stored.upcoming,
    scheduleVersion: stored.scheduleVersion,
    signature: stored.signature,
    dueKey: stored[DUE_INDEX.sortKey],
  };
}

// Items written before the previous version's fields settled may hold null for an unset field.
const optionalInt = () => z.optional(z.nullable(z.int()));
/** Items written before the JSON text attributes hold the list itself, under the field's name. */
const legacyList = () => z.optional(z.nullable(z.array(z.unknown())));

/**
 * The owner, a map: `{type: 'USER', userId, email}` or `{type: 'EMBED_USER', embedTenantName,
 * externalId, embedUserId}`. Checked as one flat shape (a zod union would weigh on every function that
 * reads a notification) and typed by `ownerOf`.
 */
const ownerAttribute = () =>
  z.object({
    type: z.enum(['USER', 'EMBED_USER']),
    userId: z.optional(z.int()),
    email: z.optional(z.string()),
    embedTenantName: z.optional(z.string()),
    externalId: z.optional(z.string()),
    embedUserId: z.optional(z.int()),
  });

function ownerOf(item: Item, stored: z.output<ReturnType<typeof ownerAttribute>>): NotificationOwner {
  const { type, userId, email, embedTenantName, externalId, embedUserId } = stored;
  if (type === 'USER' && userId !== undefined && email !== undefined) return { type, userId, email };
  if (
    type === 'EMBED_USER' &&
    embedTenantName !== undefined &&
    externalId !== undefined &&
    embedUserId !== undefined
  )
    return { type, embedTenantName, externalId, embedUserId };
  throw new MalformedItemError('notification', itemKey(item), 'owner', `lacks a field of a ${type} owner`);
}

/** A pause (its end in epoch ms, or null) and a suspension, a map. */
const holdAttribute = () =>
  z.object({
    pause: z.nullable(z.object({ until: z.nullable(z.number()), reason: z.nullable(z.string()) })),
    suspended: z.boolean(),
  }) satisfies z.ZodMiniType<NotificationHold>;

const notificationItem = () =>
  z.looseObject({
    id: z.int(),
    deploymentId: z.int(),
    dashboardId: z.int(),
    scheduleType: z.enum(scheduleTypes),
    minute: optionalInt(),
    hour: optionalInt(),
    dayOfWeek: optionalInt(),
    dayOfMonth: optionalInt(),
    customCron: z.optional(z.nullable(z.string())),
    timezone: z.string(),
    isEnabled: z.boolean(),
    notificationEnabled: z.boolean(),
    notificationFormat: z.enum(notificationFormats),
    // Items written before the summary switch existed have none: off.
    notificationAiSummary: z.optional(z.boolean()),
    filtersJson: z.optional(z.string()),
    timeGrainsJson: z.optional(z.string()),
    memberSwitchersJson: z.optional(z.string()),
    filters: legacyList(),
    timeGrains: legacyList(),
    memberSwitchers: legacyList(),
    // A map; items written before owners existed have none.

    // Items written before owners and holds have neither.
    owner: z.optional(z.nullable(ownerAttribute())),
    hold: z.optional(holdAttribute()),
    version: z.optional(z.int()),
    scheduleVersion: z.optional(z.int()),
    gsi3sk: z.optional(z.string()),
  });
type StoredNotification = z.output<ReturnType<typeof notificationItem>>;

/**
 * The elements of the list fields, as the domain types them. The text was written from a checked
 * request; these check only what the types promise (a filter's other properties pass as they are).
 */
const lists = {
  filters: () =>
    z.array(
      z.looseObject({
        member: z.string(),
        operator: z.optional(z.nullable(z.enum(filterOperators))),
        value: z.optional(z.nullable(z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown())]))),
      }),
    ),
  timeGrains: () => z.array(z.looseObject({ member: z.string(), grain: z.string() })),
  memberSwitchers: () => z.array(z.looseObject({ member: z.string(), selected: z.string() })),
} satisfies Record<JsonField, StoredShape>;

/** A list field: from its JSON text, else from a legacy list, else null. */
function listOf<S extends StoredShape>(
  item: Item,
  stored: StoredNotification,
  field: JsonField,
  shape: S,
): z.output<ReturnType<S>> | null {
  const attribute = notificationAttribute(field);
  const value =
    stored[attribute] === undefined ? stored[field] : parseJsonAttribute('notification', item, attribute);
  if (value === undefined || value === null) return null;
  const list = schemaOf(shape).safeParse(value);
  if (!list.success) {
    const problem = Array.isArray(value) ? 'holds an element of another shape' : 'is not a list';
    throw new MalformedItemError('notification', itemKey(item), attribute, problem);
  }
  return list.data;
}

/** `{ [name]: value }`, or nothing for an unset value: the notification then has no such field. */
function present<K extends string, V>(name: K, value: V | null | undefined): Partial<Record<K, V>> {
  const fields: Partial<Record<K, V>> = {};
  if (value !== undefined && value !== null) fields[name] = value;
  return fields;
}

export function decodeNotification(item: Item): Notification {
  return notificationOf(item, checkItem('notification', notificationItem, item));
}

function notificationOf(item: Item, stored: StoredNotification): Notification {
  return {
    id: stored.id,
    deploymentId: stored.deploymentId,
    dashboardId: stored.dashboardId,
    scheduleType: stored.scheduleType,
    ...present('minute', stored.minute),
    ...present('hour', stored.hour),
    ...present('dayOfWeek', stored.dayOfWeek),
    ...present('dayOfMonth', stored.dayOfMonth),
    ...present('customCron', stored.customCron),
    timezone: stored.timezone,
    isEnabled: stored.isEnabled,
    notificationEnabled: stored.notificationEnabled,
    notificationFormat: stored.notificationFormat,
    filters: listOf(item, stored, 'filters', lists.filters),
    timeGrains: listOf(item, stored, 'timeGrains', lists.timeGrains),
    memberSwitchers: listOf(item, stored, 'memberSwitchers', lists.memberSwitchers),
    notificationAiSummary: stored.notificationAiSummary ?? false,
    owner: stored.owner ? ownerOf(item, stored.owner) : null,
    hold: stored.hold ?? noHold(),
  };
}

/** A notification item's schedule version and its schedule-change mark in the due index, if any. */
export function scheduleMarksOf(item: Item): { scheduleVersion: number; changeKey: string | undefined } {
  const stored = checkItem('notification', notificationItem, item);
  return { scheduleVersion: stored.scheduleVersion ?? 0, changeKey: stored[DUE_INDEX.sortKey] };
}

/**
 * A notification as a read answers it, from its item and its schedule entry. An item the migration
 * has not reached yet (no entry) answers its cron expression as its reading and no upcoming instant:
 * `npm run migrate` right after deploying gives every item its entry.
 */
export function decodeScheduledNotification(item: Item, entry: Item | undefined): ScheduledNotification {
  return scheduledNotificationOf(decodeNotification(item), entry);
}

/** A notification already decoded, joined to its schedule entry's item. */
export function scheduledNotificationOf(
  notification: Notification,
  entry: Item | undefined,
): ScheduledNotification {
  const schedule = entry && decodeScheduleEntry(entry);
  return {
    notification,
    schedule: {
      humanReadableSchedule: schedule?.humanReadableSchedule ?? cronExpressionOf(notification),
      upcoming: schedule?.upcoming ?? [],
    },
  };
}

/** The lists an item still holds under the field's name (written before the JSON text attributes). */
export function legacyLists(item: Item): { field: JsonField; attribute: string; json: string }[] {
  return jsonFields
    .filter((field) => item[field] !== undefined && item[notificationAttribute(field)] === undefined)
    .map((field) => ({
      field,
      attribute: notificationAttribute(field),
      json: JSON.stringify(item[field]),
    }));
}
