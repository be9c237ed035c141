import { describe, expect, it } from 'vitest';
import {
  classifyRecipient,
  MAX_PROPERTIES_JSON_BYTES,
  normalizeExternalId,
  recipientKindOf,
} from '#lib/domain/recipients/recipients-input';
import { check } from '#lib/http/schemas/common';
import { KEY_PART_MAX_BYTES } from '#lib/limits';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { freshForEachTest } from '#test/support/fresh-module';

const schemas = freshForEachTest(() => import('#lib/http/schemas/recipients'));
const parse = (item: unknown) => check(schemas().recipientInput, item, ['recipients', 0]);

describe('kind inference', () => {
  it('follows the contract order: embed fields, then Slack fields, then console user fields', () => {
    expect(recipientKindOf({ externalId: 'x', channelId: 'C', userId: 1 })).toBe('EMBED_USER');
    expect(recipientKindOf({ embedTenantName: 'acme' })).toBe('EMBED_USER');
    expect(recipientKindOf({ channelName: '#a', email: 'a@b.example' })).toBe('SLACK');
    expect(recipientKindOf({ email: 'a@b.example' })).toBe('USER');
    expect(recipientKindOf({ userId: 3 })).toBe('USER');
    expect(recipientKindOf({ groups: ['g'] })).toBeUndefined();
  });

  it('says what is missing from an item that names no recipient at all', () => {
    expect(parse({ groups: ['g'] }).problems).toEqual([
      {
        path: 'recipients.0',
        message:
          'does not identify a recipient: give userId or email (USER), or embedTenantName and externalId (EMBED_USER)',
      },
    ]);
  });

  it('lets an explicit type win over the fields', () => {
    expect(recipientKindOf({ type: 'USER', externalId: 'x' })).toBe('USER');
    expect(recipientKindOf({ type: 'SLACK' })).toBe('SLACK');
  });
});

describe('recipient items', () => {
  it('hands on a classified item with the externalId trimmed', () => {
    expect(parse({ embedTenantName: 'acme', externalId: '  Ann@X.example ', groups: ['g'] }).value).toEqual({
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      externalId: 'Ann@X.example',
      groups: ['g'],
    });
    expect(parse({ email: 'a@b.example' }).value).toEqual({ type: 'USER', email: 'a@b.example' });
    expect(parse({ channelId: 'C1', userId: 4 }).value).toEqual({ type: 'SLACK', channelId: 'C1' });
  });

  it('classifies no embed user without both its tenant and its externalId', () => {
    expect(classifyRecipient({ type: 'EMBED_USER', embedTenantName: 'acme' })).toBeUndefined();
    expect(classifyRecipient({ externalId: 'x' })).toBeUndefined();
    expect(classifyRecipient({ groups: ['g'] })).toBeUndefined();
  });

  it('requires both embedTenantName and externalId for an embed user, and refuses a blank externalId', () => {
    expect(parse({ externalId: 'x' }).problems).toEqual([
      { path: 'recipients.0.embedTenantName', message: 'is required for an EMBED_USER recipient' },
    ]);
    expect(
      parse({ type: 'EMBED_USER', email: 'a@b.example' }).problems.map((problem) => problem.path),
    ).toEqual(['recipients.0.embedTenantName', 'recipients.0.externalId']);
    expect(parse({ type: 'EMBED_USER', embedTenantName: 'acme' }).problems).toEqual([
      { path: 'recipients.0.externalId', message: 'is required for an EMBED_USER recipient' },
    ]);
    expect(parse({ embedTenantName: 'acme', externalId: ' \t ' }).problems).toEqual([
      { path: 'recipients.0.externalId', message: 'must not be blank' },
    ]);
    expect(parse({ embedTenantName: '', externalId: 'x' }).problems).toEqual([
      { path: 'recipients.0.embedTenantName', message: 'must not be empty' },
    ]);
  });

  it('refuses fields that do not belong to the kind rather than ignoring them', () => {
    expect(parse({ userId: 3, groups: ['g'], channelId: undefined }).problems).toEqual([
      { path: 'recipients.0.groups', message: 'is not a field of a USER recipient' },
    ]);
    expect(
      parse({ type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'x', userId: 3 }).problems,
    ).toEqual([{ path: 'recipients.0.userId', message: 'is not a field of an EMBED_USER recipient' }]);
    expect(parse({ type: 'USER' }).problems).toEqual([
      { path: 'recipients.0', message: 'needs userId or email to identify a USER recipient' },
    ]);
  });

  it('reads null as omitted, and refuses wrong types and text that is not valid Unicode (it could not be keyed)', () => {
    // `email: null` is no e-mail, so the item names no recipient at all.
    expect(parse({ email: null }).problems.map((problem) => problem.path)).toEqual(['recipients.0']);
    expect(parse({ email: 'ada@example.com', userId: null, groups: null }).problems).toEqual([]);
    expect(parse({ userId: 1.5 }).problems).toEqual([
      { path: 'recipients.0.userId', message: 'must be a positive integer' },
    ]);
    expect(parse({ embedTenantName: 'acme', externalId: 'a\uD800b' }).problems).toEqual([
      { path: 'recipients.0.externalId', message: 'must be valid Unicode text' },
    ]);
    expect(
      parse({ embedTenantName: 'acme', externalId: 'x', securityContext: [1] }).problems.map((p) => p.path),
    ).toEqual(['recipients.0.securityContext']);
    expect(
      parse({
        embedTenantName: 'acme',
        externalId: 'x',
        userAttributes: [{ name: 'a', value: { nested: 1 } }],
      }).problems.map((problem) => problem.path),
    ).toEqual(['recipients.0.userAttributes.0.value']);
    // The platform's attribute values: text, a number, a boolean, a list of either, or none.
    expect(
      parse({
        embedTenantName: 'acme',
        externalId: 'x',
        userAttributes: [
          { name: 'a', value: 1 },
          { name: 'b', value: true },
          { name: 'c', value: ['x'] },
          { name: 'd', value: [1, 2] },
          { name: 'e', value: null },
          { name: 'f' },
        ],
      }).problems,
    ).toEqual([]);
  });

  it('bounds externalIds (also once URL-encoded, as keys hold them) and the size of the properties', () => {
    expect(parse({ embedTenantName: 'acme', externalId: `  ${'a'.repeat(256)}  ` }).problems).toEqual([]);
    expect(parse({ embedTenantName: 'acme', externalId: 'a'.repeat(257) }).problems).toEqual([
      { path: 'recipients.0.externalId', message: 'must be at most 256 characters' },
    ]);
    expect(parse({ embedTenantName: 'acme', externalId: '€'.repeat(100) }).problems).toEqual([
      {
        path: 'recipients.0.externalId',
        message: `must be at most ${KEY_PART_MAX_BYTES} bytes once URL-encoded`,
      },
    ]);
    const big = { blob: 'x'.repeat(MAX_PROPERTIES_JSON_BYTES) };
    expect(parse({ embedTenantName: 'acme', externalId: 'x', securityContext: big }).problems).toEqual([
      {
        path: 'recipients.0',
        message: expect.stringMatching(/^securityContext, userAttributes and groups together/),
      },
    ]);
    // Exactly the bytes allowed: `{"securityContext":{"k":"…"}}` around the text.
    const exact = { k: 'x'.repeat(MAX_PROPERTIES_JSON_BYTES - '{"securityContext":{"k":""}}'.length) };
    expect(parse({ embedTenantName: 'acme', externalId: 'x', securityContext: exact }).problems).toEqual([]);
    // Counted in bytes: a third as many three-byte characters is already too much.
    const multiByte = { k: '€'.repeat(Math.ceil(MAX_PROPERTIES_JSON_BYTES / 3)) };
    expect(
      parse({ embedTenantName: 'acme', externalId: 'x', securityContext: multiByte }).problems,
    ).toHaveLength(1);
  });

  it('keeps a tenant and an externalId together within a sort key, and an e-mail within its key', () => {
    // Two parts of the most bytes each fill the longest sort key that holds them: an embed row's
    // entry in the recipients index, its subscription instant before its row key.
    const widest = 'a'.repeat(KEY_PART_MAX_BYTES);
    expect(parse({ embedTenantName: 'acme', externalId: 'a'.repeat(256) }).problems).toEqual([]);
    const row = keys.embedRecipient(999_999_999_999_999, 1, widest, widest);
    const entry = indexKeys.recipient(
      { deploymentId: 999_999_999_999_999, id: 1, dashboardId: 1 },
      { type: 'EMBED_USER', embedUserId: 1 },
      '2026-11-24T18:00:00.000Z',
      row.sk,
    );
    expect(entry.gsi1sk?.length).toBeLessThanOrEqual(1024);
    expect(entry.gsi1sk?.length).toBeGreaterThan(1022);
    expect(parse({ embedTenantName: '€'.repeat(56), externalId: 'x' }).problems).toEqual([
      {
        path: 'recipients.0.embedTenantName',
        message: `must be at most ${KEY_PART_MAX_BYTES} bytes once URL-encoded`,
      },
    ]);
    expect(parse({ email: '€'.repeat(227) }).problems).toEqual([
      { path: 'recipients.0.email', message: `must be at most ${KEY_PART_MAX_BYTES} bytes once URL-encoded` },
    ]);
  });
});

describe('the request body', () => {
  it('takes 1 to 1000 recipients and nothing else', () => {
    const items = (count: number) => Array.from({ length: count }, (_, i) => ({ userId: i + 1 }));
    expect(check(schemas().addRecipientsInput, { recipients: items(1) }).problems).toEqual([]);
    expect(check(schemas().addRecipientsInput, { recipients: items(1000) }).problems).toEqual([]);
    expect(check(schemas().addRecipientsInput, { recipients: items(1001) }).problems).toEqual([
      { path: 'recipients', message: 'must have at most 1000 recipients' },
    ]);
    expect(check(schemas().addRecipientsInput, { recipients: [], note: 'x' }).problems).toEqual([
      { path: 'recipients', message: 'must have at least 1 recipient' },
      { path: 'note', message: 'is not a known field' },
    ]);
  });
});

it('normalizes externalIds by trimming and lower-casing', () => {
  expect(normalizeExternalId('  Ann@X.Example ')).toBe('ann@x.example');
});
