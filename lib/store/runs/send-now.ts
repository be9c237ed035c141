import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ManualRunClaim, SendNowStore } from '#lib/domain/runs/send-now';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { decodeSendNowMarker, encodeSendNowMarker, SEND_NOW_RUN_ATTRIBUTE } from '#lib/store/codecs/dispatch';
import { encodeDelivery, runAttributes, STORED_DISPATCHING } from '#lib/store/codecs/runs';
import { findNotification, runClaim, runDeliveryStore } from '#lib/store/dispatch/run-delivery';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { absent, compare, conditionOf, either, exists, is } from '#lib/store/dynamo/update-expression';
import { findDashboard } from '#lib/store/embedding/dashboards';
import { claimKey, completeKey, keyDoneMark, keyInUse, releaseKey } from '#lib/store/idempotency';
import { currentRun } from '#lib/store/runs/run-status';

/**
 * Send-now's storage: a run's deliveries as the dispatcher writes them, plus the one write that decides
 * the send-now limit and makes the run (and marks its Idempotency-Key done). Kept apart so that the dispatcher's bundle (and its grants)
 * carry no send-now transaction, and this one none of the due index.
 */
export const sendNowStore: SendNowStore = {
  ...runDeliveryStore,
  claimKey,
  completeKey,
  releaseKey,
  findNotification,
  findDashboard,
  findRun: (ref) => currentRun({ deploymentId: ref.deploymentId, notificationId: ref.id, runId: ref.runId }),

  async createManualRun(run, lease, previousNoLaterThan, event, held, deliveries = []) {
    const ref = { deploymentId: run.deploymentId, id: run.notificationId };
    const marker = await getItem(keys.sendNowMarker(ref.deploymentId, ref.id));
    const previous = marker && decodeSendNowMarker(marker);
    if (previous && previous.at > previousNoLaterThan)
      return { created: false, reason: 'too_soon', previousAt: previous.at };
    const actions = {
      // The limit's decision: the marker moves only from the send-now that was read, so of two
      // send-nows at once exactly one writes it.
      marker: {
        Put: {
          TableName: tableName(),
          Item: encodeSendNowMarker(ref, { at: Date.parse(run.createdAt), runId: run.runId }),
          ...conditionOf(
            previous ? is(SEND_NOW_RUN_ATTRIBUTE, previous.runId) : absent(tableKeySchema.partitionKey),
          ),
        },
      },
      run: { Put: runClaim(run, lease) },
      // No run for a notification deleted since it was read.
      notification: {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.notification(ref.deploymentId, ref.id),
          ...conditionOf(exists(tableKeySchema.partitionKey)),
        },
      },
      // The previous send-now finished recording its deliveries (or has expired since).
      previous: previous && {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.run(ref.deploymentId, ref.id, previous.runId),
          ...conditionOf(
            either(
              absent(tableKeySchema.partitionKey),
              compare(runAttributes.status, '<>', STORED_DISPATCHING),
            ),
          ),
        },
      },
      // The key's request made this run: a crash leaves both or neither.
      key: held && {
        Update: keyDoneMark(held, {
          kind: 'run',
          run: { deploymentId: run.deploymentId, id: run.notificationId, runId: run.runId },
        }),
      },
    };
    const named = Object.entries(actions).flatMap(([name, action]) =>
      action ? [[name, action] as const] : [],
    );
    const indexOf = (name: keyof typeof actions) => named.findIndex(([entry]) => entry === name);
    const send = () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            ...named.map(([, action]) => action),
            ...deliveries.map((delivery) => ({
              Put: { TableName: tableName(), Item: encodeDelivery(run, delivery) },
            })),
            auditEventPut(event),
          ],
        }),
      );
    return transact<ManualRunClaim>(send, {
      written: { created: true },
      cancelled: ({ failedAt }) => {
        const failed = (name: keyof typeof actions) => indexOf(name) >= 0 && failedAt(indexOf(name));
        if (failed('key')) throw keyInUse();
        if (failed('notification')) return { created: false, reason: 'gone' };
        if (failed('previous') && !failed('marker')) return { created: false, reason: 'dispatching' };
        // Another send-now won the marker (or is writing it now): it is the previous one, made just now.
        return { created: false, reason: 'too_soon', previousAt: Date.parse(run.createdAt) };
      },
    });
  },
};
