import type { NotificationRef } from '#lib/domain/notifications/notification';
import { notificationAttributes } from '#lib/store/codecs/notifications';
import { DUE_INDEX, dueIndexKeys, tableKeySchema } from '#lib/store/dynamo/keys';
import { absent, either, exists, ifAbsent, is, plus, type Term } from '#lib/store/dynamo/update-expression';

/**
 * What a write of a notification's schedule adds to its UpdateItem's SET: the new `scheduleVersion`
 * (the item's version after the write, as every versioned write adds 1 to `version`) and a mark in the
 * due index as of now, unless a mark is pending. The pass that finds the mark stores the schedule's
 * state if the writer did not (a crash between its two writes), and takes the mark away.
 */
export function scheduleChangeMark(target: NotificationRef, now = Date.now()): Record<string, unknown> {
  const mark = dueIndexKeys.notification(target.deploymentId, target.id, now);
  return {
    [notificationAttributes.scheduleVersion]: plus(ifAbsent(notificationAttributes.version, 0), 1),
    [DUE_INDEX.partitionKey]: mark.gsi3pk,
    // A mark still pending stays as it is: the same write sent again changes nothing but versions.
    [DUE_INDEX.sortKey]: ifAbsent(DUE_INDEX.sortKey, mark.gsi3sk),
  };
}

/**
 * The condition of a versioned write of a notification's item: it exists and is still at the version
 * read. An item written before versions has none: it is at version 0.
 */
export function atVersion(version: number): Term[] {
  const current = notificationAttributes.version;
  return [
    exists(tableKeySchema.partitionKey),
    version === 0 ? either(absent(current), is(current, version)) : is(current, version),
  ];
}
