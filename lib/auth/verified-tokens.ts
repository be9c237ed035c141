import { createHash } from 'node:crypto';

/**
 * Embed tokens already verified by this container, until they expire. An embedded app sends the same
 * token with every request of a session, and checking its signature again (an RSA or EC verification,
 * and the JSON around it) costs more CPU than the request's own storage work.
 *
 * Safe because a token is remembered only after its signature and claims were verified, under the
 * digest of its exact bytes (any other text is a miss and is verified in full); only until its own
 * `exp`, so it is never accepted after it would be refused; and no longer than the tenant's keys are
 * trusted (`embedKeysCacheMs`), so a key the tenant withdraws stops its tokens as soon as the keys
 * themselves would be fetched again. Failures are never remembered.
 */
export class VerifiedTokens<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #maxAgeMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(maxAgeMs: number, maxEntries = 1000, now: () => number = Date.now) {
    this.#maxAgeMs = maxAgeMs;
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  static digest(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  find(token: string): V | undefined {
    const key = VerifiedTokens.digest(token);
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt > this.#now()) return hit.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Remembers a verified token until `expiresAtSeconds` (its `exp`), within the cache's own bound. */
  remember(token: string, value: V, expiresAtSeconds: number): void {
    if (this.#maxAgeMs <= 0) return;
    const now = this.#now();
    const expiresAt = Math.min(expiresAtSeconds * 1000, now + this.#maxAgeMs);
    if (expiresAt <= now) return;
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(VerifiedTokens.digest(token), { value, expiresAt });
  }
}
