import type { NotificationRef } from '#lib/domain/notifications/notification';
import { DUE_INDEX, dueIndexKeys } from '#lib/store/dynamo/keys';

/**
 * What a write of a notification's schedule adds to its UpdateItem: the new `scheduleVersion` (the
 * item's version after the write) and a mark in the due index as of now, unless a mark is pending.
 * The pass that finds the mark stores the schedule's state if the writer did not (a crash between its
 * two writes), and takes the mark away. `#version` and `:one` are the caller's, as every update has them.
 */
export function scheduleChangeMark(target: NotificationRef, now = Date.now()) {
  const mark = dueIndexKeys.notification(target.deploymentId, target.id, now);
  return {
    names: {
      '#scheduleVersion': 'scheduleVersion',
      '#markPk': DUE_INDEX.partitionKey,
      '#markSk': DUE_INDEX.sortKey,
    },
    values: { ':zero': 0, ':markPk': mark.gsi3pk, ':markSk': mark.gsi3sk },
    // A mark still pending stays as it is: the same write sent again changes nothing but versions.
    sets: [
      '#scheduleVersion = if_not_exists(#version, :zero) + :one',
      '#markPk = :markPk',
      '#markSk = if_not_exists(#markSk, :markSk)',
    ],
  };
}
