import * as z from 'zod/mini';
import { type Notification, nextRunOf, type VersionedNotification } from '#lib/domain/notification';
import {
  type DashboardFilter,
  type DashboardMemberSwitcher,
  type DashboardTimeGrain,
  notificationFormats,
} from '#lib/domain/notification-fields';
import { scheduleTypes } from '#lib/domain/schedule-fields';
import { checkItem, itemKey, MalformedItemError, parseJsonAttribute } from '#lib/store/codecs/stored-item';
import type { Item } from '#lib/store/items';
import { dueIndexKeys, indexKeys, keys } from '#lib/store/keys';

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
] as const satisfies readonly (keyof Notification)[];

/**
 * Filters, time grains and member switchers hold free-form JSON (a filter's value can be any JSON),
 * kept as JSON text (`filtersJson`, `timeGrainsJson`, `memberSwitchersJson`): every number and key comes back exactly as given, which
 * DynamoDB's own numbers (38 digits, 1e-130..1e126) and maps (32 levels, no empty keys) would not do.
 */
const jsonFields = ['filters', 'timeGrains', 'memberSwitchers'] as const;
type JsonField = (typeof jsonFields)[number];
const isJsonField = (field: string): field is JsonField => (jsonFields as readonly string[]).includes(field);

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
 * The due-index attributes of a notification as of `now`: its next firing instant while it is
 * enabled, none otherwise. Every writer of a notification stores what this returns.
 */
export function dueIndexAttributes(
  notification: Notification,
  now: number,
): { gsi3pk: string; gsi3sk: string } | undefined {
  const next = nextRunOf(notification, now);
  return next === undefined
    ? undefined
    : dueIndexKeys.notification(notification.deploymentId, notification.id, next);
}

/**
 * `createdAt` is when the item was first written; the index entries follow from its id and dashboard,
 * and its due entry from its schedule as of that moment.
 */
export function encodeNotification(
  notification: Notification,
  version = 0,
  createdAt = new Date().toISOString(),
): Item {
  return {
    ...keys.notification(notification.deploymentId, notification.id),
    ...indexKeys.notification(notification.deploymentId, notification.id, notification.dashboardId),
    entity: 'NOTIFICATION',
    ...attributesOf(notification),
    ...dueIndexAttributes(notification, Date.parse(createdAt)),
    createdAt,
    version,
  };
}

// Items written before the previous version's fields settled may hold null for an unset field.
const optionalInt = z.optional(z.nullable(z.int()));
/** Items written before the JSON text attributes hold the list itself, under the field's name. */
const legacyList = z.optional(z.nullable(z.array(z.unknown())));

const notificationItem = z.looseObject({
  id: z.int(),
  deploymentId: z.int(),
  dashboardId: z.int(),
  scheduleType: z.enum(scheduleTypes),
  minute: optionalInt,
  hour: optionalInt,
  dayOfWeek: optionalInt,
  dayOfMonth: optionalInt,
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
  filters: legacyList,
  timeGrains: legacyList,
  memberSwitchers: legacyList,
  version: z.optional(z.int()),
});
type StoredNotification = z.output<typeof notificationItem>;

/**
 * A list field: from its JSON text, else from a legacy list, else null. The text was written from a
 * checked request, so its elements have the request schema's shape; only the list itself is checked here.
 */
function listOf<T>(item: Item, stored: StoredNotification, field: JsonField): T[] | null {
  const attribute = notificationAttribute(field);
  const value =
    stored[attribute] === undefined ? stored[field] : parseJsonAttribute('notification', item, attribute);
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value))
    throw new MalformedItemError('notification', itemKey(item), attribute, 'is not a list');
  return value as T[];
}

const present = <K extends string, V>(name: K, value: V | null | undefined) =>
  value === undefined || value === null ? {} : ({ [name]: value } as Record<K, V>);

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
    filters: listOf<DashboardFilter>(item, stored, 'filters'),
    timeGrains: listOf<DashboardTimeGrain>(item, stored, 'timeGrains'),
    memberSwitchers: listOf<DashboardMemberSwitcher>(item, stored, 'memberSwitchers'),
    notificationAiSummary: stored.notificationAiSummary ?? false,
  };
}

/** The notification and the `version` its item was read at (0 for an item written without one). */
export function decodeVersionedNotification(item: Item): VersionedNotification {
  const stored = checkItem('notification', notificationItem, item);
  return { notification: notificationOf(item, stored), version: stored.version ?? 0 };
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
