import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { loadFresh } from '#test/support/fresh-module';
import { apiEvent, throughMiddlewares } from '#test/support/middleware';

const LIMIT = 5 * 1024 * 1024;
const JSON_TYPE = { 'content-type': 'application/json' };
// The module is loaded anew in each test (below), so its errors are told apart by code, not class.
const MALFORMED = { code: 'malformed_json' };
const TOO_LARGE = { code: 'payload_too_large' };
const UNSUPPORTED = { code: 'unsupported_media_type' };

const bodyOf = async (
  event: Parameters<typeof apiEvent>[0],
  { optional = false }: { optional?: boolean } = {},
) => {
  // Loaded in the test: the accepted content types are a pattern built when the module loads.
  const { jsonBody } = await loadFresh(() => import('#lib/http/json-body'));
  return (await throughMiddlewares([jsonBody(z.unknown(), { optional }).parser], apiEvent(event))).event
    .body as unknown;
};

describe('jsonBody', () => {
  it('hands on the parsed body', async () => {
    expect(await bodyOf({ headers: JSON_TYPE, body: '{"a":[1,"b",null]}' })).toEqual({ a: [1, 'b', null] });
  });

  it('reads a base64-encoded body as UTF-8 JSON', async () => {
    const body = Buffer.from('{"name":"Zoë"}').toString('base64');
    expect(await bodyOf({ headers: JSON_TYPE, body, isBase64Encoded: true })).toEqual({ name: 'Zoë' });
  });

  it('reads an absent or empty optional body as {}, and refuses it as malformed JSON where a body is required', async () => {
    for (const body of [undefined, '']) {
      expect(await bodyOf({ headers: JSON_TYPE, body }, { optional: true })).toEqual({});
      await expect(bodyOf({ headers: JSON_TYPE, body })).rejects.toMatchObject(MALFORMED);
    }
  });

  it('parses an optional body that is sent', async () => {
    expect(await bodyOf({ headers: JSON_TYPE, body: '{"x":1}' }, { optional: true })).toEqual({ x: 1 });
  });

  it('refuses a body that does not parse', async () => {
    await expect(bodyOf({ headers: JSON_TYPE, body: '{"a":' })).rejects.toMatchObject(MALFORMED);
  });

  // The size is checked before the content type: a body within the limit sent as text/plain is
  // refused as 415, one past it as 413, and no 5 MiB of JSON needs parsing to tell the two apart.
  const PLAIN = { 'content-type': 'text/plain' };

  it('takes a body of exactly 5 MiB and refuses one byte more, counting UTF-8 bytes', async () => {
    await expect(bodyOf({ headers: PLAIN, body: 'a'.repeat(LIMIT) })).rejects.toMatchObject(UNSUPPORTED);
    await expect(bodyOf({ headers: PLAIN, body: 'a'.repeat(LIMIT + 1) })).rejects.toMatchObject({
      ...TOO_LARGE,
      message: `The request body exceeds ${LIMIT} bytes`,
    });
    // Fewer characters than the limit, more bytes: 'é' takes two.
    const accented = 'é'.repeat(LIMIT / 2 + 1);
    expect(accented.length).toBeLessThan(LIMIT);
    await expect(bodyOf({ headers: PLAIN, body: accented })).rejects.toMatchObject(TOO_LARGE);
  });

  it('counts the decoded bytes of a base64-encoded body against the limit', async () => {
    // Whole groups of three bytes, so that the encoded length states the decoded size exactly.
    const encoded = (bytes: number) => Buffer.alloc(bytes, 'a').toString('base64');
    const largestWholeGroups = LIMIT - (LIMIT % 3);
    await expect(
      bodyOf({ headers: PLAIN, body: encoded(largestWholeGroups), isBase64Encoded: true }),
    ).rejects.toMatchObject(UNSUPPORTED);
    await expect(
      bodyOf({ headers: PLAIN, body: encoded(largestWholeGroups + 3), isBase64Encoded: true }),
    ).rejects.toMatchObject(TOO_LARGE);
  });

  it('refuses an over-large body before looking at its content type', async () => {
    await expect(bodyOf({ headers: PLAIN, body: 'a'.repeat(LIMIT + 1) })).rejects.toMatchObject(TOO_LARGE);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/vnd.api+json',
    'application/merge-patch+json;charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json; charset="utf-8"',
  ])('accepts the content type %s', async (contentType) => {
    expect(await bodyOf({ headers: { 'content-type': contentType }, body: '{}' })).toEqual({});
  });

  it('reads the content type under either spelling of the header name', async () => {
    expect(await bodyOf({ headers: { 'Content-Type': 'application/json' }, body: '{}' })).toEqual({});
  });

  it.each([
    'text/plain',
    'application/jsonx',
    'application/json-patch',
    'xapplication/json',
    'text/application/json',
    'application/x-www-form-urlencoded',
    'application/+json',
    '',
    // JSON is UTF-8 (RFC 8259): a body declared in another charset would be read as something else.
    'application/json; charset=utf-16',
    'application/json; charset=UTF-16LE',
    'application/json;charset="iso-8859-1"',
    'application/vnd.api+json; charset=latin1',
  ])('refuses the content type %j', async (contentType) => {
    await expect(bodyOf({ headers: { 'content-type': contentType }, body: '{}' })).rejects.toMatchObject(
      UNSUPPORTED,
    );
  });

  it('refuses a body sent without a content type, or without any headers', async () => {
    await expect(bodyOf({ headers: {}, body: '{}' })).rejects.toMatchObject(UNSUPPORTED);
    await expect(bodyOf({ headers: undefined, body: '{}' })).rejects.toMatchObject(UNSUPPORTED);
  });
});
