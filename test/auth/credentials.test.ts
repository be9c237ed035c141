import { describe, expect, it } from 'vitest';
import { readCredential } from '#lib/auth/credentials';
import { UnauthorizedError } from '#lib/errors';
import { TtlCache } from '#lib/ttl-cache';

describe('readCredential', () => {
  it('reads an API key from either scheme, the scheme in any case', () => {
    expect(readCredential('Bearer sk-abc')).toEqual({ kind: 'api-key', key: 'sk-abc' });
    expect(readCredential('api-KEY sk-abc')).toEqual({ kind: 'api-key', key: 'sk-abc' });
  });

  it('reads anything else after Bearer as a JWT when it has three segments', () => {
    expect(readCredential('Bearer a.b.c')).toEqual({ kind: 'jwt', token: 'a.b.c' });
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Token sk-abc',
    'Api-Key abc',
    'Bearer a.b',
    `Bearer ${'a'.repeat(20_000)}.b.c`,
  ])('refuses %j', (header) => {
    expect(() => readCredential(header)).toThrow(UnauthorizedError);
  });
});

describe('TtlCache', () => {
  it('reuses a value until it expires, then loads again', async () => {
    let now = 0;
    let loads = 0;
    const cache = new TtlCache<number>(1000, 10, () => now);
    const load = async () => ++loads;
    expect(await cache.get('k', load)).toBe(1);
    now = 999;
    expect(await cache.get('k', load)).toBe(1);
    now = 1000;
    expect(await cache.get('k', load)).toBe(2);
  });

  it('shares one load between concurrent misses', async () => {
    let loads = 0;
    const cache = new TtlCache<number>(1000);
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
  });

  it('forgets a failed load', async () => {
    const cache = new TtlCache<number>(1000);
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 7)).toBe(7);
  });

  it('caches nothing with a TTL of zero', async () => {
    let loads = 0;
    const cache = new TtlCache<number>(0);
    await cache.get('k', async () => ++loads);
    await cache.get('k', async () => ++loads);
    expect(loads).toBe(2);
  });
});
