import * as z from 'zod/mini';
import { type AuditActor, type AuditEvent, auditActions } from '#lib/domain/audit/audit';
import type { Page } from '#lib/domain/paging';
import { type DescribesAll, idOutput } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';
import { recipientOutput } from '#lib/http/schemas/recipient-outputs';

/** What the audit routes answer, for the API description (see notification-outputs.ts). */

const auditActorOutput = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('USER'),
    userId: idOutput(),
    via: z.enum(['api_key', 'console_token']),
  }),
  z.strictObject({ type: z.literal('EMBED_USER'), embedTenantName: z.string(), externalId: z.string() }),
  z.strictObject({ type: z.literal('RECIPIENT') }),
  z.strictObject({ type: z.literal('SYSTEM') }),
]) satisfies z.ZodMiniType<AuditActor>;
true satisfies DescribesAll<AuditActor, typeof auditActorOutput>;

/** A field's value before or after; a value over 8 KiB as JSON is `{sha256, bytes}` of that JSON. */
const fieldChangeOutput = z.strictObject({ before: z.unknown(), after: z.unknown() });

const auditChangesOutput = z.nullable(
  z.union([
    z.strictObject({ count: z.int(), recipients: z.array(recipientOutput) }),
    z.strictObject({ runId: z.string() }),
    z.record(z.string(), fieldChangeOutput),
  ]),
);

const auditEventOutput = z.strictObject({
  eventId: z.string(),
  at: z.string(),
  deploymentId: idOutput(),
  notificationId: idOutput(),
  action: z.enum(auditActions),
  actor: auditActorOutput,
  changes: auditChangesOutput,
  requestId: z.nullable(z.string()),
}) satisfies z.ZodMiniType<AuditEvent>;

export const auditEventPage = pageOf(auditEventOutput) satisfies z.ZodMiniType<Page<AuditEvent>>;
