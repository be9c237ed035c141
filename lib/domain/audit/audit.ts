import { createHash } from 'node:crypto';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import type { Principal } from '#lib/domain/principal';
import type { KindUnion } from '#lib/domain/recipients/recipient-kinds';
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import type { EventRecorder } from '#lib/domain/webhooks/recording';

/**
 * The audit trail: one event per request that changes a notification, written in the transaction of
 * the request's last write (lib/store/audit), so that no change goes without its event and no event
 * without its change.
 */

export const auditActions = [
  'created',
  'updated',
  'owner_changed',
  'recipients_added',
  'recipients_removed',
  'paused',
  'resumed',
  'suspended',
  'sent',
  'test_sent',
  'retried',
  'unsubscribed',
  'deleted',
] as const;
export type AuditAction = (typeof auditActions)[number];

/** A user of either kind, an unsubscribe link's recipient (who signs no request), or the service itself. */
export type AuditActor = KindUnion<'actor'> | { type: 'RECIPIENT' } | { type: 'SYSTEM' };

/** A field's value, or its digest when its JSON is over FIELD_VALUE_LIMIT_BYTES. */
type AuditValue = unknown;
export type FieldChanges = Record<string, { before: AuditValue; after: AuditValue }>;
export type AuditChanges =
  | FieldChanges
  | { count: number; recipients: RecipientOutput[] }
  | { runId: string }
  | null;

export interface AuditEvent {
  eventId: string;
  at: string;
  deploymentId: number;
  notificationId: number;
  action: AuditAction;
  actor: AuditActor;
  changes: AuditChanges;
  requestId: string | null;
}

/** Who made a request and which request it was: what every event of it carries. */
export interface AuditContext {
  actor: AuditActor;
  requestId: string | null;
}

/** A value over this many bytes as JSON is recorded as its digest: an event stays far below the item limit. */
const FIELD_VALUE_LIMIT_BYTES = 8 * 1024;

/** The actor of a request made by `principal`; a platform session changes no notification. */
function actorOf(principal: Principal): AuditActor {
  switch (principal.kind) {
    case 'console':
      return { type: 'USER', userId: principal.user.id, via: principal.via };
    case 'embed':
      return { type: 'EMBED_USER', embedTenantName: principal.tenant, externalId: principal.externalId };
    case 'platform':
      return { type: 'SYSTEM' };
  }
}

export const auditContextOf = (principal: Principal, requestId: string | null): AuditContext => ({
  actor: actorOf(principal),
  requestId,
});

/**
 * What a change records besides itself, and when: who made it (its audit event) and who wants to hear
 * of it (its webhook event). A delete, a pause, a resume take it from their caller.
 */
export interface ChangeContext {
  audit: AuditContext;
  recorder: EventRecorder;
  now: number;
}

export const systemContext = (): AuditContext => ({ actor: { type: 'SYSTEM' }, requestId: null });

/**
 * The fields of a notification the trail records: everything a caller can set, so all but its identity
 * and its hold (whose changes are events of their own). A record of every such field, so that a field
 * added to Notification fails to compile until it is named here, in the order the trail lists them.
 */
const recorded: Record<Exclude<keyof Notification, 'id' | 'deploymentId' | 'hold'>, true> = {
  dashboardId: true,
  scheduleType: true,
  minute: true,
  hour: true,
  dayOfWeek: true,
  dayOfMonth: true,
  customCron: true,
  timezone: true,
  isEnabled: true,
  notificationEnabled: true,
  notificationFormat: true,
  filters: true,
  timeGrains: true,
  memberSwitchers: true,
  notificationAiSummary: true,
  owner: true,
};

/** A value as the trail keeps it: itself, or `{sha256, bytes}` of its JSON when that is over the limit. */
function recordedValue(value: unknown): AuditValue {
  if (value === undefined || value === null) return null;
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= FIELD_VALUE_LIMIT_BYTES) return value;
  return { sha256: createHash('sha256').update(json).digest('hex'), bytes };
}

/** Values compare as JSON: lists and maps by their content. */
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** `{field: {before, after}}` for each recorded field that differs; every field set at creation (before null). */
export function fieldChanges(before: Notification | null, after: Notification): FieldChanges {
  const changes: FieldChanges = {};
  // Read here, not at load: a module-level call would keep the record in every bundle importing this file.
  for (const field of Object.keys(recorded) as (keyof typeof recorded)[]) {
    const old = before?.[field];
    const now = after[field];
    if (before && sameValue(old, now)) continue;
    if (!before && (now === undefined || now === null)) continue;
    changes[field] = { before: recordedValue(old), after: recordedValue(now) };
  }
  return changes;
}

/** `updated`, or `owner_changed` when the owner is the only field that changed. */
export const updateAction = (changes: FieldChanges): AuditAction => {
  const fields = Object.keys(changes);
  return fields.length === 1 && fields[0] === 'owner' ? 'owner_changed' : 'updated';
};

/** The recipients a recipients event lists as output items; `count` says how many changed in all. */
const LISTED_RECIPIENTS = 100;

/** The event of a change of recipients, made once the request knows which it changed. */
export const recipientsEvent =
  (context: AuditContext, target: NotificationRef, action: AuditAction, now: number) =>
  (changed: readonly RecipientOutput[]): NewAuditEvent =>
    auditEvent(context, target, action, recipientChanges(changed), now);

export const recipientChanges = (recipients: readonly RecipientOutput[]): AuditChanges => ({
  count: recipients.length,
  recipients: recipients.slice(0, LISTED_RECIPIENTS),
});

/** An event before storage gives it its id. */
export type NewAuditEvent = Omit<AuditEvent, 'eventId'>;

/** The `created` event of a notification just made: every field it was made with. */
export const creationEvent =
  (context: AuditContext, at: number) =>
  (notification: Notification): NewAuditEvent =>
    auditEvent(context, notification, 'created', fieldChanges(null, notification), at);

export function auditEvent(
  context: AuditContext,
  target: NotificationRef,
  action: AuditAction,
  changes: AuditChanges,
  at: number,
): NewAuditEvent {
  return {
    at: new Date(at).toISOString(),
    deploymentId: target.deploymentId,
    notificationId: target.id,
    action,
    actor: context.actor,
    changes,
    requestId: context.requestId,
  };
}
