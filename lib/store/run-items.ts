import type { Delivery, Run } from '#lib/domain/runs';
import type { Item } from '#lib/store/items';

/** Runs and deliveries as items: the stored fields, without keys, leases or index attributes. */

const runFields = [
  'runId',
  'deploymentId',
  'notificationId',
  'trigger',
  'scheduledFor',
  'createdAt',
  'status',
  'skipReason',
  'recipients',
] as const satisfies readonly (keyof Run)[];

export function runFromItem(item: Item): Run {
  const run: Record<string, unknown> = {};
  for (const field of runFields) run[field] = item[field];
  return run as unknown as Run;
}

export function deliveryFromItem(item: Item): Delivery {
  return {
    recipientKey: item.recipientKey as string,
    recipient: item.recipient as Delivery['recipient'],
    status: item.status as Delivery['status'],
    reason: (item.reason as Delivery['reason'] | undefined) ?? null,
    jobId: (item.jobId as string | undefined) ?? null,
  };
}
