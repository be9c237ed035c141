import { createHash } from 'node:crypto';
import type { Notification } from '#lib/domain/notifications/notification';
import { canonicalJson } from '#lib/domain/recipients/recipients-properties';
import type { RunRef } from '#lib/domain/runs/runs';

/**
 * The Idempotency-Key, one mechanism for every request that takes it (create, send-now, test send,
 * retry): the first request with a key claims it, and the write that makes what it asked for also
 * marks the key done with a reference to it, in the same transaction. A repeat of the key (same
 * caller, deployment and fingerprint, within 24 h) answers that reference as it stands and does
 * nothing again; another fingerprint is IdempotencyKeyMismatchError; a claim still held is
 * ConflictError. A request that fails before its write gives the key back, so that its repeat goes
 * ahead at once instead of meeting the claim.
 */

/** An Idempotency-Key as stored: scoped to deployment and caller, with the fingerprint of its request. */
export interface IdempotencyClaim {
  caller: string;
  key: string;
  fingerprint: string;
}

/** What the key's first request made: answered again by every repeat. */
export type IdempotentResult =
  | { kind: 'notification'; notification: Notification }
  | { kind: 'run'; run: RunRef };

/** A key this request holds: what the write that completes it names in its transaction. */
export interface HeldKey {
  deploymentId: number;
  claim: IdempotencyClaim;
  owner: string;
}

/** The key records, as every use case that takes a key needs them (lib/store/idempotency.ts). */
export interface IdempotencyKeys {
  /**
   * Takes the key: fresh, past its 24 h, or abandoned by a holder whose lease ran out. A key whose
   * request completed answers `done`.
   */
  claimKey(
    deploymentId: number,
    claim: IdempotencyClaim,
  ): Promise<{ held: HeldKey; done?: IdempotentResult }>;
  /** Marks the key done on its own, when the request's work had no write of its own to mark it in. */
  completeKey(held: HeldKey, result: IdempotentResult): Promise<void>;
  /** Gives back a key still pending and held by this request (a failed request); best effort. */
  releaseKey(held: HeldKey): Promise<void>;
}

/** The SHA-256 of a request's canonical JSON: what a repeat must match. */
export const requestFingerprint = (request: unknown): string =>
  createHash('sha256')
    .update(canonicalJson(request) ?? '')
    .digest('hex');

/** A key given with a request: who sent it, and the key's text. */
export interface IdempotencyKeyInput {
  caller: string;
  key: string;
}

/**
 * Runs `first` at most once per key: without a key, simply; with one, `again` answers a repeat of a
 * key whose request completed. `first` receives the held key, which its completing write marks done.
 */
export async function onceForKey<Answer>(
  keys: IdempotencyKeys,
  deploymentId: number,
  claim: IdempotencyClaim | undefined,
  first: (held: HeldKey | undefined) => Promise<Answer>,
  again: (done: IdempotentResult) => Promise<Answer>,
): Promise<Answer> {
  if (!claim) return first(undefined);
  const { held, done } = await keys.claimKey(deploymentId, claim);
  if (done) return again(done);
  try {
    return await first(held);
  } catch (error) {
    // A key already marked done stays so: the release only frees a claim nothing completed.
    await keys.releaseKey(held).catch(() => {});
    throw error;
  }
}
