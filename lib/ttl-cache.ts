/**
 * A small per-container cache: a warm Lambda reuses what it looked up, and an entry is trusted for at
 * most `ttlMs`, which bounds how long a change (a rotated key, a deactivated user) can go unseen.
 * Concurrent misses for one key share a single load.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(ttlMs: number, maxEntries = 1000, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  /** The value held for `key` while it is fresh, without loading anything. */
  peek(key: string): Promise<V> | undefined {
    const hit = this.#entries.get(key);
    return hit && hit.expiresAt > this.#now() ? hit.value : undefined;
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const fresh = this.peek(key);
    if (fresh) return fresh;
    if (this.#ttlMs <= 0) return load();
    const value = load();
    // A failed load must not be remembered: the next request tries again.
    value.catch(() => this.#entries.delete(key));
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, expiresAt: this.#now() + this.#ttlMs });
    return value;
  }
}
