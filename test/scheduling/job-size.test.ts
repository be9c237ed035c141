import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { config } from '#lib/config';
import { notificationFormats } from '#lib/domain/notifications/notification-fields';
import { MAX_PROPERTIES_JSON_BYTES } from '#lib/domain/recipients/recipients-input';
import { isEmail } from '#lib/domain/recipients/recipients-resolution';
import {
  KEY_PART_MAX_BYTES,
  keyPartLimits,
  notificationJsonBytes,
  SQS_MESSAGE_MAX_BYTES,
  utf8Bytes,
} from '#lib/limits';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { largestLists } from '#test/support/largest-lists';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * The largest delivery job the input limits allow fits the delivery queue's message limit. The job is
 * made as every job is: a notification created and a recipient added through the API, each filled to
 * its limits, then a send-now; its file in the outbox is measured as the SQS sink sends it (compact
 * JSON). Every byte figure comes from the limit modules, so a limit raised there is measured here; a new
 * job field derived from stored data is counted as soon as the job builder adds it. A new input with a
 * limit of its own that reaches the job must be filled to it here too.
 */

/** A control character: one UTF-8 byte as text, six (`\u0001`) in JSON, three (`%01`) in a key. */
const WIDE = '\u0001';
const JSON_WIDE_BYTES = 6;
const KEY_WIDE_BYTES = 3;

/** Text of exactly `bytes` bytes once JSON-escaped (quotes aside): six-byte escapes, then letters. */
const jsonText = (bytes: number) =>
  WIDE.repeat(Math.floor(bytes / JSON_WIDE_BYTES)) + 'x'.repeat(bytes % JSON_WIDE_BYTES);

/** The widest text of at most `chars` characters that also fits a key part. */
const widestKeyText = (chars: number) =>
  WIDE.repeat(Math.min(chars, Math.floor(KEY_PART_MAX_BYTES / KEY_WIDE_BYTES)));

/**
 * A list whose JSON is exactly `budget` bytes: items as wide as `item` makes them (its text at most
 * `maxChars`), the last one padded to the byte.
 */
function listOfJsonBytes(budget: number, maxChars: number, item: (text: string) => unknown): unknown[] {
  const items: unknown[] = [];
  const size = (list: unknown[]) => utf8Bytes(JSON.stringify(list));
  for (;;) {
    const widest = item(WIDE.repeat(maxChars));
    if (size([...items, widest, item('')]) <= budget) {
      items.push(widest);
      continue;
    }
    items.push(item(jsonText(budget - size([...items, item('')]))));
    return items;
  }
}

/** The longest e-mail address the recipient input takes. */
const EMAIL_MAX_CHARS = 320;
const longestEmail = () => `${'e'.repeat(64)}@${'d'.repeat(EMAIL_MAX_CHARS - 64 - 1 - 3)}.ex`;

const tenant = widestKeyText(128);
const publicId = 'p'.repeat(keyPartLimits.publicId);
const deploymentId = 999_999_999_999_999;

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    deployments: [{ id: deploymentId, name: 'Largest' }],
    dashboards: [
      {
        id: deploymentId,
        deploymentId,
        publicId,
        title: 'Largest',
        published: true,
        sharedWithTenants: [tenant],
      },
    ],
    embedTenants: [{ name: tenant, issuer: 'https://auth.largest.example', jwks: { keys: [] } }],
  });
});
afterAll(() => api.close());

it('makes the largest delivery job the limits allow, and it fits the queue', async () => {
  const largest = largestLists();
  const fillers: Record<keyof typeof notificationJsonBytes, (budget: number) => unknown[]> = {
    // `value` takes a list of any JSON: one filter can carry the whole budget.
    filters: (budget) =>
      listOfJsonBytes(budget, budget, (text) => ({
        member: 'Orders.note',
        operator: 'equals',
        value: [text],
      })),
    // Text in these lists is at most 3 bytes a character: at every count and length they stay within
    // their bytes (a stated limit the service can always store), so their largest is the longest.
    timeGrains: () => largest.timeGrains ?? [],
    memberSwitchers: () => largest.memberSwitchers ?? [],
  };
  const stored = Object.fromEntries(
    Object.entries(notificationJsonBytes).map(([field, budget]) => [
      field,
      fillers[field as keyof typeof fillers](budget),
    ]),
  );
  const format = [...notificationFormats].sort((a, b) => b.length - a.length)[0];
  const created = await api.request('POST', `/v1/deployments/${deploymentId}/notifications`, {
    token: ADMIN_KEY,
    body: {
      dashboardId: deploymentId,
      scheduleType: 'DAILY',
      hour: 9,
      notificationFormat: format,
      ...stored,
    },
  });
  expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
  const path = `/v1/deployments/${deploymentId}/notifications/${created.body.id}`;

  const email = longestEmail();
  expect(email).toHaveLength(EMAIL_MAX_CHARS);
  expect(isEmail(email)).toBe(true);
  const propertiesBase = utf8Bytes(JSON.stringify({ securityContext: { s: '' } }));
  const recipient = {
    embedTenantName: tenant,
    externalId: widestKeyText(256),
    email,
    securityContext: { s: jsonText(MAX_PROPERTIES_JSON_BYTES - propertiesBase) },
  };
  const added = await api.request('POST', `${path}/recipients`, {
    token: ADMIN_KEY,
    body: { recipients: [recipient] },
  });
  expect(added.status, JSON.stringify(added.body).slice(0, 300)).toBe(200);

  const run = await api.request('POST', `${path}/send`, { token: ADMIN_KEY });
  expect(run.body.recipients).toEqual({ queued: 1, skipped: 0, delivered: 0, failed: 0 });
  const deliveries = await api.request('GET', `${path}/runs/${run.body.runId}/deliveries`, {
    token: ADMIN_KEY,
  });
  const [{ jobId }] = deliveries.body.items;
  const job = JSON.parse(await readFile(join(config().outboxDir, `${jobId}.json`), 'utf8'));

  // Each input in the job is at its limit...
  expect(utf8Bytes(JSON.stringify(job.filters))).toBe(notificationJsonBytes.filters);
  for (const field of ['timeGrains', 'memberSwitchers'] as const) {
    expect(job[field]).toEqual(stored[field]);
    expect(utf8Bytes(JSON.stringify(job[field]))).toBeLessThanOrEqual(notificationJsonBytes[field]);
  }
  const { securityContext } = job.recipient;
  expect(utf8Bytes(JSON.stringify({ securityContext }))).toBe(MAX_PROPERTIES_JSON_BYTES);
  // ...and the job as the queue receives it fits a message.
  const bytes = utf8Bytes(JSON.stringify(job));
  const inputs =
    utf8Bytes(JSON.stringify(job.filters)) +
    utf8Bytes(JSON.stringify(job.timeGrains)) +
    utf8Bytes(JSON.stringify(job.memberSwitchers)) +
    MAX_PROPERTIES_JSON_BYTES;
  expect(bytes).toBeGreaterThan(inputs);
  expect(bytes).toBeLessThanOrEqual(SQS_MESSAGE_MAX_BYTES);
});
