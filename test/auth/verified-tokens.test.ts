import { describe, expect, it } from 'vitest';
import { VerifiedTokens } from '#lib/auth/verified-tokens';

/** The cache of verified embed tokens: a hit only for the same bytes, never past `exp` or the keys' age. */
describe('VerifiedTokens', () => {
  const clock = (start: number) => {
    let now = start;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };
  const seconds = (ms: number) => Math.floor(ms / 1000);

  it('answers a remembered token until its exp, and not a moment after', () => {
    const time = clock(1_000_000_000_000);
    const cache = new VerifiedTokens<string>(600_000, 10, time.now);
    cache.remember('a.b.c', 'alice', seconds(time.now()) + 60);
    expect(cache.find('a.b.c')).toBe('alice');
    time.advance(59_000);
    expect(cache.find('a.b.c')).toBe('alice');
    time.advance(1_000);
    expect(cache.find('a.b.c')).toBeUndefined();
  });

  it('keeps a long-lived token no longer than the tenant keys are trusted', () => {
    const time = clock(1_000_000_000_000);
    const cache = new VerifiedTokens<string>(300_000, 10, time.now);
    cache.remember('a.b.c', 'alice', seconds(time.now()) + 24 * 3600);
    time.advance(300_000);
    expect(cache.find('a.b.c')).toBeUndefined();
  });

  it('is a miss for any other text, a changed signature included', () => {
    const cache = new VerifiedTokens<string>(300_000);
    cache.remember('head.body.sig', 'alice', seconds(Date.now()) + 60);
    expect(cache.find('head.body.sig2')).toBeUndefined();
    expect(cache.find('head.body2.sig')).toBeUndefined();
  });

  it('remembers nothing when its age is 0 or the token has already expired', () => {
    const off = new VerifiedTokens<string>(0);
    off.remember('a.b.c', 'alice', seconds(Date.now()) + 60);
    expect(off.find('a.b.c')).toBeUndefined();
    const on = new VerifiedTokens<string>(300_000);
    on.remember('a.b.c', 'alice', seconds(Date.now()) - 1);
    expect(on.find('a.b.c')).toBeUndefined();
  });
});
