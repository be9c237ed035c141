import { connect } from 'node:net';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROPERTIES_JSON_BYTES } from '#lib/domain/recipients/recipients-input';
import { notificationJsonBytes, notificationListLimits } from '#lib/limits';
import { base64url } from '#lib/local/sign-jwt';
import { decodeNotification } from '#lib/store/codecs/notifications';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { storedRows } from '#test/functions/add-recipients-helpers';
import { ACME_ISSUER, acmeKey, embeddableDashboardFixture } from '#test/support/fixtures';
import { type ApiResponse, type LocalApi, startLocalApi } from '#test/support/local-api';
import { tableSnapshot } from '#test/support/table-snapshot';
import { freshClaims, signJwt } from '#test/support/tokens';

/**
 * Requests an attacker would send, each once seen to break the service (a 5xx, a partial write, a
 * value stored altered, an error outside the error shape). Every one is now a clear 4xx decided
 * before anything is written, or it succeeds and reads back exactly.
 */

const ADMIN = 'sk-admin';
const PUT_PATH = '/v1/deployments/7/notifications/700';
const RECIPIENTS_PATH = '/v1/deployments/7/notifications/700/recipients';

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi(
    embeddableDashboardFixture([
      { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', apiKeys: [ADMIN] },
    ]),
  );
});
afterAll(() => api.close());

/** Sends the JSON text as it is: JSON.stringify cannot write 1e309 or 9007199254740993. */
const sendJson = (method: string, path: string, json: string) =>
  api.request(method, path, { token: ADMIN, body: json, headers: { 'content-type': 'application/json' } });

function expectErrorShape(response: ApiResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toMatchObject({ message: expect.any(String), code, requestId: expect.any(String) });
}

const paths = (response: ApiResponse) =>
  (response.body.errors as { path: string }[]).map((problem) => problem.path);

const storedNotification = async () =>
  decodeNotification((await getItem(keys.notification(7, 700))) as Record<string, unknown>);

describe('a junk embed token', () => {
  it('naming a tenant that is not well-formed Unicode is a 401 on every route, not a 500', async () => {
    const header = base64url(JSON.stringify({ alg: 'RS256', kid: 'x' }));
    const payload = base64url('{"tenant":"\\ud800","iss":"x","aud":"embed","sub":"a","exp":9999999999}');
    const token = `${header}.${payload}.AAAA`;
    for (const [method, path] of [
      ['GET', '/v1/embed/dashboard/ops-kpis'],
      ['PATCH', '/v1/embed/dashboard/ops-kpis'],
      ['PUT', PUT_PATH],
      ['POST', RECIPIENTS_PATH],
    ] as const) {
      const response = await api.request(method, path, { token, body: method === 'GET' ? undefined : {} });
      expectErrorShape(response, 401, 'unauthorized');
    }
  });

  it('naming a tenant too long for a key is a 401 as well', async () => {
    const token = signJwt(
      freshClaims({ iss: ACME_ISSUER, aud: 'embed', sub: 'a', tenant: '€'.repeat(200) }),
      acmeKey,
    );
    expectErrorShape(
      await api.request('GET', '/v1/embed/dashboard/ops-kpis', { token }),
      401,
      'unauthorized',
    );
  });

  it('with a crit header is refused, however well signed', async () => {
    const claims = freshClaims({ iss: ACME_ISSUER, aud: 'embed', sub: 'alice', tenant: 'acme' });
    const good = signJwt(claims, acmeKey);
    expect((await api.request('GET', '/v1/embed/dashboard/ops-kpis', { token: good })).status).toBe(200);
    const critical = signJwt(claims, acmeKey, { crit: ['urn:x-unknown'] });
    expectErrorShape(
      await api.request('GET', '/v1/embed/dashboard/ops-kpis', { token: critical }),
      401,
      'unauthorized',
    );
  });
});

describe('filters and time grains', () => {
  const filterWith = (fields: string) => `{"filters":[{"member":"A.b",${fields}}]}`;

  it.each([
    ['"value":1e20', 1e20],
    ['"value":-0.5e-7', -0.5e-7],
    ['"value":[{"":"x"}]', [{ '': 'x' }]],
    ['"value":[{"constructor":{"prototype":1}}]', [{ constructor: { prototype: 1 } }]],
    ['"value":"x","caseSensitive":1e-200', 'x'],
  ])('%s is stored and read back exactly', async (fields, value) => {
    const json = filterWith(fields);
    const response = await sendJson('PUT', PUT_PATH, json);
    expect(response.status).toBe(200);
    const sent = JSON.parse(json).filters;
    expect(response.body.filters).toEqual(sent);
    expect(response.body.filters[0].value).toEqual(value);
    expect((await storedNotification()).filters).toEqual(sent);
  });

  it.each([
    ['"value":9007199254740993', ['filters.0.value']],
    ['"value":[1e309]', ['filters.0.value.0']],
    ['"value":-1e400', ['filters.0.value']],
    ['"value":1e-400', ['filters.0.value']],
    ['"value":"x","caseSensitive":1e309', ['filters.0.caseSensitive']],
    ['"value":[{"\\ud800":"x"}]', ['filters.0.value.0']],
    ['"value":["\\udfff"]', ['filters.0.value.0']],
    ['"value":{"__proto__":{"admin":true}}', ['filters.0.value.__proto__']],
  ])('%s is refused naming the field, and nothing is written', async (fields, named) => {
    const before = await tableSnapshot();
    const response = await sendJson('PUT', PUT_PATH, filterWith(fields));
    expectErrorShape(response, 400, 'validation_failed');
    expect(paths(response)).toEqual(named);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('a value nested past the depth limit is refused, naming the limit and the field', async () => {
    const before = await tableSnapshot();
    const deep = `${'['.repeat(40)}1${']'.repeat(40)}`;
    const response = await sendJson('PUT', PUT_PATH, filterWith(`"value":${deep}`));
    expectErrorShape(response, 400, 'validation_failed');
    expect(response.body.message).toContain('32 levels');
    // Body, filters list and filter are three levels: the value's 30th nested list is the 33rd.
    expect(paths(response)).toEqual([['filters', 0, 'value', ...Array(29).fill(0)].join('.')]);
    expect(await tableSnapshot()).toEqual(before);
  });

  it.each([
    ['{"hour":3,"hour":4}', ['hour']],
    ['{"filters":[{"member":"A.b","value":1,"value":2}]}', ['filters.0.value']],
    ['{"filters":[{"member":"A.b","value":{"a":1,"\\u0061":2}}]}', ['filters.0.value.a']],
    [
      '{"filters":[{"member":"A.b"},{"member":"A.c","member":"A.d"}],"hour":1,"hour":2}',
      ['filters.1.member', 'hour'],
    ],
  ])(
    '%s: a member name given twice is a 400 naming it (its value would be ambiguous)',
    async (json, named) => {
      const before = await tableSnapshot();
      const response = await sendJson('PUT', PUT_PATH, json);
      expectErrorShape(response, 400, 'validation_failed');
      expect(paths(response)).toEqual(named);
      expect(response.body.errors[0].message).toBe('is given more than once');
      expect(await tableSnapshot()).toEqual(before);
    },
  );

  it('the same name in two different objects is no duplicate', async () => {
    const response = await sendJson('PUT', PUT_PATH, '{"filters":[{"member":"A.b"},{"member":"A.c"}]}');
    expect(response.status).toBe(200);
  });

  it('the longest lists the stated limits allow, every text at its length in 3-byte characters, are stored', async () => {
    // Each stated count times each stated length, in the widest characters the lists accept: a
    // request within every documented limit succeeds (the counts and lengths multiply out within
    // the byte limits the description also states).
    const { filters: f, timeGrains: g, memberSwitchers: m, memberPathLength } = notificationListLimits;
    const member = (i: number) => `A.${'€'.repeat(memberPathLength - 2 - String(i).length)}${i}`;
    const body = {
      filters: Array.from({ length: f.items }, (_, i) => ({
        member: member(i),
        operator: 'greater_than_or_equal',
        value: '€'.repeat(f.valueLength),
      })),
      timeGrains: Array.from({ length: g.items }, (_, i) => ({
        member: member(i),
        grain: '€'.repeat(g.grainLength),
      })),
      memberSwitchers: Array.from({ length: m.items }, (_, i) => ({
        member: member(i),
        selected: '€'.repeat(m.selectedLength),
      })),
      customCron: null,
      timezone: 'UTC',
    };
    const response = await api.request('PUT', PUT_PATH, { token: ADMIN, body });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    const stored = await storedNotification();
    expect(stored.filters).toEqual(body.filters);
    expect(stored.timeGrains).toEqual(body.timeGrains);
    expect(stored.memberSwitchers).toEqual(body.memberSwitchers);
  });

  it('one item or character past a stated limit is a 400 naming the field, and nothing is written', async () => {
    const { filters: f, memberPathLength } = notificationListLimits;
    const before = await tableSnapshot();
    const tooMany = Array.from({ length: f.items + 1 }, (_, i) => ({ member: `A.${i}` }));
    const tooLong = [{ member: `A.${'x'.repeat(memberPathLength - 1)}` }];
    const control = [{ member: 'A.b', value: 'a\u0001b' }];
    const response = await api.request('PUT', PUT_PATH, {
      token: ADMIN,
      body: { filters: tooMany, timeGrains: tooLong.map((t) => ({ ...t, grain: 'day' })) },
    });
    expectErrorShape(response, 400, 'validation_failed');
    expect(paths(response)).toEqual(['filters', 'timeGrains.0.member']);
    const controlled = await api.request('PUT', PUT_PATH, { token: ADMIN, body: { filters: control } });
    expect(paths(controlled)).toEqual(['filters.0.value']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('a list that fills its bytes exactly is stored and read back; one byte more is a 400', async () => {
    // A list value counts against the bytes only: here it carries the bulk.
    const value = ['€'.repeat(1000), ''];
    const filters = [{ member: 'A.b', operator: 'equals', value }];
    const size = () => Buffer.byteLength(JSON.stringify(filters));
    value[1] = 'x'.repeat(notificationJsonBytes.filters - size());
    expect(size()).toBe(notificationJsonBytes.filters);
    const response = await api.request('PUT', PUT_PATH, { token: ADMIN, body: { filters } });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    expect((await storedNotification()).filters).toEqual(filters);
    value[1] += 'x';
    const over = await api.request('PUT', PUT_PATH, { token: ADMIN, body: { filters } });
    expectErrorShape(over, 400, 'validation_failed');
    expect(paths(over)).toEqual(['filters']);
  });
});

describe('a notification item written before filters were kept as JSON text', () => {
  it('reads its filters, and the next write moves them to the JSON text attribute', async () => {
    const filters = [{ member: 'A.b', operator: 'equals', value: 'x' }];
    const item = { ...keys.notification(7, 701), entity: 'NOTIFICATION', id: 701, deploymentId: 7 };
    await documentClient().send(
      new PutCommand({
        TableName: tableName(),
        // As the previous version wrote it: every field of the DTO, filters as a map.
        Item: {
          ...item,
          dashboardId: 70,
          scheduleType: 'DAILY',
          hour: 9,
          timezone: 'UTC',
          isEnabled: true,
          notificationEnabled: true,
          notificationFormat: 'png',
          filters,
          version: 0,
        },
      }),
    );
    const response = await api.request('PUT', '/v1/deployments/7/notifications/701', {
      token: ADMIN,
      body: { hour: 10 },
    });
    expect(response.status).toBe(200);
    expect(response.body.filters).toEqual(filters);
    const stored = (await getItem(keys.notification(7, 701))) as Record<string, unknown>;
    expect(stored.filters).toBeUndefined();
    expect(JSON.parse(stored.filtersJson as string)).toEqual(filters);
  });
});

describe('custom cron', () => {
  it.each(['5,55 23,0 1,L * *', '5,55 23,0 * * 5L,6', '0 9 * * 1#2', '0 9 ? * 1', '0 9 15W * *'])(
    '%s (outside standard cron) is a 400 naming customCron',
    async (customCron) => {
      const response = await api.request('PUT', PUT_PATH, {
        token: ADMIN,
        body: { scheduleType: 'CUSTOM', customCron },
      });
      expectErrorShape(response, 400, 'validation_failed');
      expect(paths(response)).toEqual(['customCron']);
    },
  );
});

describe('add recipients', () => {
  const embedUser = (i: number, securityContext: unknown) => ({
    embedTenantName: 'acme',
    externalId: `user-${i}@customer.example`,
    securityContext,
  });

  it('one console user and 50 embed users of 96 KB each: a 400 with nothing written, not a partial 500', async () => {
    const recipients = [
      { userId: 1 },
      ...Array.from({ length: 50 }, (_, i) => embedUser(i, { k: '€'.repeat(32000) })),
    ];
    const before = await tableSnapshot();
    const response = await api.request('POST', RECIPIENTS_PATH, { token: ADMIN, body: { recipients } });
    expectErrorShape(response, 400, 'validation_failed');
    expect(paths(response)).toEqual(Array.from({ length: 50 }, (_, i) => `recipients.${i + 1}`));
    expect(await tableSnapshot()).toEqual(before);
  });

  it('50 embed users at the byte limit each, with a console user: all stored, properties exact', async () => {
    // The largest securityContext the limit allows, in three-byte characters.
    const context = (k: string) => ({ k, n: 10, tiny: 1e-200, big: 1e20 });
    const overhead = Buffer.byteLength(JSON.stringify({ securityContext: context('') }));
    const k = '€'.repeat(Math.floor((MAX_PROPERTIES_JSON_BYTES - overhead) / 3));
    const embedUsers = Array.from({ length: 50 }, (_, i) => embedUser(100 + i, { ...context(k), n: 10 + i }));
    const recipients = [{ userId: 1 }, ...embedUsers];
    const response = await api.request('POST', RECIPIENTS_PATH, { token: ADMIN, body: { recipients } });
    expect(response.status, JSON.stringify(response.body).slice(0, 400)).toBe(200);
    expect(response.body.createdRecipients).toHaveLength(51);
    const rows = (await storedRows(700)).filter((row) => row.type === 'EMBED_USER');
    expect(rows).toHaveLength(50);
    const sent = new Map(embedUsers.map((item) => [item.externalId, item.securityContext]));
    for (const row of rows) {
      expect(JSON.parse(row.securityContextJson as string)).toEqual(sent.get(row.externalId as string));
    }
  });

  it('a securityContext number JSON cannot carry is refused, naming it, not stored as null', async () => {
    const before = await tableSnapshot();
    const response = await sendJson(
      'POST',
      RECIPIENTS_PATH,
      '{"recipients":[{"embedTenantName":"acme","externalId":"z","securityContext":{"n":1e309}}]}',
    );
    expectErrorShape(response, 400, 'validation_failed');
    expect(paths(response)).toEqual(['recipients.0.securityContext.n']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('an e-mail too long for its key is a 400 naming it, not a 500', async () => {
    const response = await api.request('POST', RECIPIENTS_PATH, {
      token: ADMIN,
      body: { recipients: [{ email: '€'.repeat(227) }] },
    });
    expectErrorShape(response, 400, 'validation_failed');
    expect(paths(response)).toEqual(['recipients.0.email']);
  });
});

/** Raw bytes on a socket: what no HTTP client would send. */
function rawExchange(request: string): Promise<string> {
  const { port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

function parseRaw(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
}

describe('errors before any handler runs keep the error shape', () => {
  it('a header section over 16 KiB', async () => {
    const raw = await rawExchange(
      `GET /v1/embed/dashboard/ops-kpis HTTP/1.1\r\nHost: x\r\nX-Junk: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    const { status, head, body } = parseRaw(raw);
    expect(status).toBe(400);
    expect(head.toLowerCase()).toContain('content-type: application/json');
    expect(body).toEqual({
      message: expect.stringContaining('headers'),
      code: 'validation_failed',
      requestId: expect.any(String),
    });
  });

  it('a malformed request line', async () => {
    const { status, body } = parseRaw(await rawExchange('GET\u0001 nonsense\r\n\r\n'));
    expect(status).toBe(400);
    expect(body).toEqual({
      message: expect.any(String),
      code: 'validation_failed',
      requestId: expect.any(String),
    });
  });

  it('a body over 10 MiB', async () => {
    const response = await sendJson('PUT', PUT_PATH, `"${'x'.repeat(10 * 1024 * 1024 + 1)}"`);
    expectErrorShape(response, 413, 'payload_too_large');
  });

  it('JSON nested 3000 deep is refused for its depth, not called malformed', async () => {
    const response = await sendJson('PUT', PUT_PATH, `{"filters":${'['.repeat(3000)}${']'.repeat(3000)}}`);
    expectErrorShape(response, 400, 'validation_failed');
    expect(response.body.message).toContain('32 levels');
  });

  it('a __proto__ key is an unknown field, and pollutes nothing', async () => {
    const before = await tableSnapshot();
    const response = await sendJson('PUT', PUT_PATH, '{"__proto__":{"isEnabled":false},"hour":3}');
    expectErrorShape(response, 400, 'validation_failed');
    expect(paths(response)).toEqual(['__proto__']);
    expect(await tableSnapshot()).toEqual(before);
    expect(({} as Record<string, unknown>).isEnabled).toBeUndefined();
  });
});
