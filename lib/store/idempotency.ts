import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { HeldKey, IdempotencyClaim, IdempotentResult } from '#lib/domain/idempotency';
import { ConflictError, IdempotencyKeyMismatchError } from '#lib/errors';
import {
  decodeIdempotencyRecord,
  encodeIdempotencyClaim,
  encodeIdempotencyResult,
  idempotencyAttributes,
} from '#lib/store/codecs/idempotency';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, itemUpdate, updateItem } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { absent, compare, conditionOf, either, is } from '#lib/store/dynamo/update-expression';

/**
 * The Idempotency-Key records of every request that takes a key (lib/domain/idempotency.ts): the
 * claim, the done mark that goes in the transaction of the write it completes, and the release.
 * Each use case's adapter lists the three functions by name (no spread), so that a function that
 * bundles an adapter module for another of its exports tree-shakes them away.
 */

/** An Idempotency-Key is remembered this long (DynamoDB's TTL removes the record some time after). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/**
 * How long a claimed key counts as in flight. Longer than any request that takes a key can run (the
 * longest times out after 30 s), so a live request is never taken over; a crashed one is after this.
 */
const IDEMPOTENCY_LEASE_MS = 60_000;

export const keyInUse = () =>
  new ConflictError('A request with this Idempotency-Key is in progress; retry it');

/** A record still in flight under `owner`: its request has not completed, nor was it taken over. */
const heldBy = (owner: string) => [
  is(idempotencyAttributes.owner, owner),
  is(idempotencyAttributes.state, 'pending'),
];

const recordKey = (deploymentId: number, claim: IdempotencyClaim) =>
  keys.idempotencyRecord(deploymentId, claim.caller, claim.key);

/**
 * Takes the key for this request: a new record (or one past its 24 h), a matching record whose
 * request completed, or a matching record whose holder's lease ran out (taken over).
 */
export async function claimKey(
  deploymentId: number,
  claim: IdempotencyClaim,
): Promise<{ held: HeldKey; done?: IdempotentResult }> {
  const key = recordKey(deploymentId, claim);
  const held: HeldKey = { deploymentId, claim, owner: randomUUID() };
  const now = Date.now();
  const fresh = await conditionHeld(() =>
    documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: encodeIdempotencyClaim(key, {
          fingerprint: claim.fingerprint,
          owner: held.owner,
          leaseUntil: now + IDEMPOTENCY_LEASE_MS,
          expiresAt: Math.floor(now / 1000) + IDEMPOTENCY_TTL_SECONDS,
        }),
        ...conditionOf(
          either(
            absent(tableKeySchema.partitionKey),
            compare(idempotencyAttributes.expiresAt, '<', Math.floor(now / 1000)),
          ),
        ),
      }),
    ),
  );
  if (fresh) return { held };
  const item = await getItem(key);
  const record = item && decodeIdempotencyRecord(item);
  if (!record) throw keyInUse();
  if (record.fingerprint !== claim.fingerprint) throw new IdempotencyKeyMismatchError();
  if (record.done) return { held, done: record.done };
  if (record.leaseUntil !== undefined && record.leaseUntil > now) throw keyInUse();
  const takenOver = await conditionHeld(() =>
    updateItem(key, {
      set: {
        [idempotencyAttributes.owner]: held.owner,
        [idempotencyAttributes.leaseUntil]: now + IDEMPOTENCY_LEASE_MS,
      },
      condition: heldBy(record.owner),
    }),
  );
  if (!takenOver) throw keyInUse();
  return { held };
}

/**
 * The update that marks a held key done with what its request made, for the transaction of the
 * write that makes it: a crash leaves both or neither. Its condition fails only when the key was
 * taken from this request (its lease ran out): the transaction's answer is then keyInUse().
 */
export function keyDoneMark(held: HeldKey, result: IdempotentResult) {
  return itemUpdate(recordKey(held.deploymentId, held.claim), {
    set: { [idempotencyAttributes.state]: 'done', ...encodeIdempotencyResult(result) },
    remove: [idempotencyAttributes.leaseUntil],
    condition: heldBy(held.owner),
  });
}

export async function completeKey(held: HeldKey, result: IdempotentResult): Promise<void> {
  const marked = await conditionHeld(() =>
    documentClient().send(new UpdateCommand(keyDoneMark(held, result))),
  );
  if (!marked) throw keyInUse();
}

export async function releaseKey(held: HeldKey): Promise<void> {
  await conditionHeld(() =>
    documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: recordKey(held.deploymentId, held.claim),
        ...conditionOf(...heldBy(held.owner)),
      }),
    ),
  );
}
