import * as z from 'zod/mini';
import type { DueEntry, RunProgress } from '#lib/domain/dispatch/dispatch-ports';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import { decodeRun } from '#lib/store/codecs/runs';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { DUE_INDEX, dueIndexKeys } from '#lib/store/dynamo/keys';

/**
 * What the dispatcher alone reads: the due index's entries, a run with its lease's cursor, and the
 * send-now marker. Apart from the run and delivery codecs, so that the functions that only read runs
 * (outcome reports, the run lists) bundle none of these schemas.
 */

const progressItem = () => z.looseObject({ cursor: z.optional(z.string()) });
const dueNotificationItem = () =>
  z.looseObject({
    entity: z.enum(['SCHEDULE', 'NOTIFICATION']),
    deploymentId: z.int(),
    id: z.int(),
    [DUE_INDEX.sortKey]: z.string(),
  });
const dueRunItem = () =>
  z.looseObject({
    deploymentId: z.int(),
    notificationId: z.int(),
    runId: z.string(),
    [DUE_INDEX.sortKey]: z.string(),
  });
const sendNowMarkerItem = () => z.looseObject({ lastAt: z.number(), runId: z.string() });

/** A run a dispatcher has taken over, with the cursor of the page its last holder finished. */
export function decodeRunProgress(item: Item): RunProgress {
  return {
    run: decodeRun(item),
    cursor: checkItem('run', progressItem, item).cursor,
  };
}

/**
 * An entry of the due index read from `shard`: a schedule entry whose instant has come, a notification
 * item's schedule-change mark, or a run whose lease has ended; undefined for an item of another kind.
 */
export function decodeDueEntry(item: Item, shard: number): DueEntry | undefined {
  if (item.entity === 'RUN') {
    const run = checkItem('run', dueRunItem, item);
    return {
      shard,
      kind: 'run',
      deploymentId: run.deploymentId,
      notificationId: run.notificationId,
      runId: run.runId,
      dueKey: run[DUE_INDEX.sortKey],
    };
  }
  if (item.entity !== 'SCHEDULE' && item.entity !== 'NOTIFICATION') return undefined;
  const entry = checkItem('due entry', dueNotificationItem, item);
  const dueKey = entry[DUE_INDEX.sortKey];
  return {
    shard,
    kind: entry.entity === 'SCHEDULE' ? 'notification' : 'change',
    deploymentId: entry.deploymentId,
    notificationId: entry.id,
    dueKey,
    dueAt: dueIndexKeys.instantOf(dueKey),
  };
}

/** A notification's latest send-now: when it was made, and its run. */
export interface SendNowMarker {
  at: number;
  runId: string;
}

/** The marker's attribute naming its run, on which the next send-now's write is conditional. */
export const SEND_NOW_RUN_ATTRIBUTE = 'runId';

export const encodeSendNowMarker = (ref: NotificationRef, marker: SendNowMarker): Item => ({
  ...keys.sendNowMarker(ref.deploymentId, ref.id),
  entity: 'SEND_NOW',
  lastAt: marker.at,
  [SEND_NOW_RUN_ATTRIBUTE]: marker.runId,
});

export function decodeSendNowMarker(item: Item): SendNowMarker {
  const stored = checkItem('send-now marker', sendNowMarkerItem, item);
  return { at: stored.lastAt, runId: stored.runId };
}
