import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { LONGEST_WRITER_SECONDS } from '#lib/timeouts';

/**
 * The race guard between a delete and every request that writes into a notification's partition
 * (add and remove recipients, send-now, a run's retry, the dispatcher). Two halves:
 *
 * 1. A writer checks that the notification is still live AFTER its writes (and, for the dispatcher
 *    and send-now, before each page of jobs leaves): live then means every write it made came
 *    before the delete, so it answers success and the delete's purge removes what it wrote with the
 *    rest; gone means it answers 404 (the dispatcher stops) and sends no further job.
 * 2. What a writer that lost the race wrote after the delete is removed by the purge, which keeps
 *    sweeping the partition until PURGE_GRACE_MS after the delete: longer than any such writer
 *    can run, so nothing written after the purge's last sweep can exist.
 *
 * A writer that starts after the delete reads the notification first, finds it gone, and writes
 * nothing. docs/data-model.md ("Delete and the purge") gives the whole argument.
 */
export async function notificationIsLive(ref: NotificationRef): Promise<boolean> {
  return (await getItem(keys.notification(ref.deploymentId, ref.id))) !== undefined;
}

/**
 * The same check as the last write of a request that records its audit event after its other writes
 * (an add of recipients): the event is put only if the notification is still live, in one transaction.
 */
export function recordIfLive(ref: NotificationRef, event: NewAuditEvent): Promise<boolean> {
  const check = {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.notification(ref.deploymentId, ref.id),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
  return transact(
    () => documentClient().send(new TransactWriteCommand({ TransactItems: [check, auditEventPut(event)] })),
    { written: true, cancelled: ({ failedAt }) => (failedAt(0) ? false : undefined) },
  );
}

/**
 * How long after a delete the purge keeps sweeping: the longest writer's timeout plus a minute for
 * calls that were already on the wire when their function stopped.
 */
export const PURGE_GRACE_MS = (LONGEST_WRITER_SECONDS + 60) * 1000;
