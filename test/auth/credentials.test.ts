import { describe, expect, it } from 'vitest';
import { TtlCache } from '#lib/ttl-cache';
import { freshForEachTest } from '#test/support/fresh-module';

// Loaded in each test: the header's patterns and limits are set when the module loads.
const credentials = freshForEachTest(() => import('#lib/auth/credentials'));
const readCredential = (header: string | undefined) => credentials().readCredential(header);

/** Why a header is refused; the module is loaded anew in each test, so its errors are told by code. */
function refusalOf(header: string | undefined) {
  try {
    readCredential(header);
  } catch (error) {
    expect(error).toMatchObject({ code: 'unauthorized' });
    return (error as Error).message;
  }
  throw new Error(`${header} was accepted`);
}

describe('readCredential', () => {
  it('reads an API key from either scheme, the scheme in any case', () => {
    expect(readCredential('Bearer sk-abc')).toEqual({ kind: 'api-key', key: 'sk-abc' });
    expect(readCredential('api-KEY sk-abc')).toEqual({ kind: 'api-key', key: 'sk-abc' });
  });

  it('reads anything else after Bearer as a JWT when it has three segments, the last possibly empty', () => {
    expect(readCredential('Bearer a.b.c')).toEqual({ kind: 'jwt', token: 'a.b.c' });
    expect(readCredential('Bearer eyJ-_0.eyJ-_1.sig-_2')).toEqual({
      kind: 'jwt',
      token: 'eyJ-_0.eyJ-_1.sig-_2',
    });
    expect(readCredential('Bearer eyJh.eyJp.')).toEqual({ kind: 'jwt', token: 'eyJh.eyJp.' });
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
    expect(refusalOf(header)).toEqual(expect.any(String));
  });

  it('says what is wrong with the header', () => {
    expect(refusalOf(undefined)).toBe('The Authorization header is missing');
    expect(refusalOf('')).toBe('The Authorization header is missing');
    expect(refusalOf('Bearer')).toBe('The Authorization header must be "Bearer <token>"');
    expect(refusalOf('Basic YWRh')).toBe('The Authorization header must be "Bearer <token>"');
    expect(refusalOf(' Bearer sk-ada')).toBe('The Authorization header must be "Bearer <token>"');
    expect(refusalOf('Api-Key ada')).toBe('The API key is not valid');
    expect(refusalOf('Bearer a.b')).toBe('The bearer token is not valid');
    expect(refusalOf('Bearer sk-ada sk-bob')).toBe('The Authorization header must be "Bearer <token>"');
  });

  it.each(['!a.b.c', 'a.b.c!', 'a.b.c.d', '.b.c', 'a..c'])('refuses the bearer token %j, no JWT', (token) => {
    expect(refusalOf(`Bearer ${token}`)).toBe('The bearer token is not valid');
  });

  it('takes any run of spaces between scheme and credential, and trailing spaces', () => {
    expect(readCredential('Bearer   sk-ada')).toEqual({ kind: 'api-key', key: 'sk-ada' });
    expect(readCredential('Bearer sk-ada  ')).toEqual({ kind: 'api-key', key: 'sk-ada' });
    expect(readCredential('Bearer a.b.c\t')).toEqual({ kind: 'jwt', token: 'a.b.c' });
  });

  it('takes a header of up to 16 KiB', () => {
    const header = (length: number) => `Bearer sk-${'a'.repeat(length - 'Bearer sk-'.length)}`;
    expect(readCredential(header(16 * 1024)).kind).toBe('api-key');
    expect(refusalOf(header(16 * 1024 + 1))).toBe('The Authorization header must be "Bearer <token>"');
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
