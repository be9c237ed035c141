import { createHmac } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#lib/config';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { ADMIN_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { platformRenderer } from '#test/support/tokens';

/**
 * One-click unsubscribe links through the local API over the real engine: a link removes the one
 * subscription it was made for, only in the exact text the service issued, and its POST body is held
 * to the size of every body.
 */

process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';

const platform = platformRenderer('unsubscribe');
const RENDERER = () => platform.token();
const base = '/v1/deployments/7/notifications';
/** The embed recipient of notification `id` (one embed user each: the fixture creates them one by one). */
const wile = (id: number) => ({ embedTenantName: 'acme', externalId: `wile-${id}@acme.example` });
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      platform,
      notifications: [700, 701, 702, 703, 704, 705].map((id) => ({
        id,
        deploymentId: 7,
        dashboardId: 70,
        scheduleType: 'DAILY',
        hour: 9,
        isEnabled: false,
        recipients: [{ userId: 1 }, wile(id)],
      })),
    }),
  );
});

afterAll(() => api.close());

interface Job {
  jobId: string;
  runId: string;
  recipient: { type: string };
  unsubscribeUrl: string;
}

const admin = (method: string, path: string, body?: unknown) =>
  api.request(method, path, { token: ADMIN_KEY, body });

/** The unsubscribe token of each job of a new send-now run, by recipient type. */
async function sendTokens(id: number): Promise<Record<'USER' | 'EMBED_USER', string> & { jobs: Job[] }> {
  const run = await admin('POST', `${base}/${id}/send`);
  expect(run.status).toBe(202);
  const dir = config().outboxDir;
  const jobs = (
    await Promise.all(
      (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as Job),
    )
  ).filter((job) => job.runId === run.body.runId);
  const tokenOf = (type: string) => {
    const job = jobs.find((candidate) => candidate.recipient.type === type) as Job;
    return new URL(job.unsubscribeUrl).searchParams.get('token') as string;
  };
  return { USER: tokenOf('USER'), EMBED_USER: tokenOf('EMBED_USER'), jobs };
}

const recipientTypes = async (id: number) =>
  (await admin('GET', `${base}/${id}/recipients`)).body.items
    .map((item: { type: string }) => item.type)
    .sort();
const post = (token: string, options: { body?: string; headers?: Record<string, string> } = {}) =>
  api.request('POST', `/v1/unsubscribe?token=${encodeURIComponent(token)}`, options);
const page = (token: string) => api.request('GET', `/v1/unsubscribe?token=${encodeURIComponent(token)}`);

async function expectExpired(id: number, token: string) {
  const shown = await page(token);
  expect(shown.status).toBe(200);
  expect(shown.text).toContain('This unsubscribe link has expired');
  expect(shown.text).not.toContain('<form');
  const answer = await post(token);
  expect(answer.status).toBe(400);
  expect(answer.body.errors).toEqual([
    { path: 'token', message: 'has expired: the recipient was subscribed again since this link was sent' },
  ]);
  expect(await recipientTypes(id)).toEqual(['EMBED_USER', 'USER']);
}

describe('an unsubscribe link names one subscription', () => {
  it('after its recipient unsubscribed and was subscribed again, it is 400, removes nothing, and its page says it expired', async () => {
    const old = await sendTokens(700);
    for (const token of [old.USER, old.EMBED_USER]) expect((await post(token)).status).toBe(200);
    expect(await recipientTypes(700)).toEqual([]);
    // Each removal recorded once, by the recipient, naming who left; a repeat removes and records nothing.
    expect((await post(old.USER)).status).toBe(200);
    const events = (await admin('GET', `${base}/700/events?first=3`)).body.items;
    expect(events.slice(0, 2)).toMatchObject([
      {
        action: 'unsubscribed',
        actor: { type: 'RECIPIENT' },
        changes: { count: 1, recipients: [{ type: 'EMBED_USER', embedTenantName: 'acme' }] },
      },
      {
        action: 'unsubscribed',
        actor: { type: 'RECIPIENT' },
        changes: { count: 1, recipients: [{ type: 'USER', userId: 1, email: expect.any(String) }] },
      },
    ]);
    expect(events[2]?.action).toBe('sent');
    expect(
      (await admin('POST', `${base}/700/recipients`, { recipients: [{ userId: 1 }, wile(700)] })).status,
    ).toBe(200);
    for (const token of [old.USER, old.EMBED_USER]) await expectExpired(700, token);
    // The new subscription's own link works, and differs from the old one.
    const fresh = await sendTokens(700);
    expect(fresh.USER).not.toBe(old.USER);
    expect((await page(fresh.USER)).text).toContain('<form method="post"');
    expect((await post(fresh.USER)).status).toBe(200);
    expect(await recipientTypes(700)).toEqual(['EMBED_USER']);
  });

  it('after its recipient was removed by an admin and added again, it is 400 and removes nothing', async () => {
    const old = await sendTokens(701);
    const removed = await admin('DELETE', `${base}/701/recipients`, {
      recipients: [{ type: 'USER', id: 1 }],
    });
    expect(removed.status).toBe(204);
    await admin('POST', `${base}/701/recipients`, { recipients: [{ userId: 1 }] });
    await expectExpired(701, old.USER);
    // The recipient who stayed subscribed keeps a working link.
    expect((await post(old.EMBED_USER)).status).toBe(200);
    expect(await recipientTypes(701)).toEqual(['USER']);
  });

  it('a retried job carries the link of the same subscription', async () => {
    const sent = await sendTokens(702);
    const job = sent.jobs.find((candidate) => candidate.recipient.type === 'USER') as Job;
    const failed = await api.request('POST', `/v1/deliveries/${encodeURIComponent(job.jobId)}/outcome`, {
      token: RENDERER(),
      body: { status: 'failed', attempt: 1, error: 'mailbox full' },
    });
    expect(failed.status).toBe(204);
    expect((await admin('POST', `${base}/702/runs/${job.runId}/retry`)).status).toBe(202);
    const dir = config().outboxDir;
    const retried = JSON.parse(await readFile(join(dir, `${job.jobId}.json`), 'utf8')) as Job & {
      attempt: number;
    };
    expect(retried.attempt).toBe(2);
    expect(retried.unsubscribeUrl).toBe(job.unsubscribeUrl);
    expect(Object.keys(retried)).not.toContain('subscriptionNonce');
  });

  it('a link mailed before links named a subscription removes that subscription, and no later one', async () => {
    // A row stored before subscriptions had a nonce, and the version 1 link mailed for it.
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.userRecipient(7, 703, 1),
        UpdateExpression: 'REMOVE subscriptionNonce',
      }),
    );
    const payload = Buffer.from(JSON.stringify([1, 7, 703, 'U', 1])).toString('base64url');
    const signingKey = Buffer.from(config().unsubscribeSigningKey as string, 'base64');
    const mailed = `${payload}.${createHmac('sha256', signingKey).update(`unsubscribe.${payload}`).digest('base64url')}`;
    // Jobs sent now for that row still carry the very link mailed before.
    expect((await sendTokens(703)).USER).toBe(mailed);
    expect((await page(mailed)).text).toContain('<form method="post"');
    expect((await post(mailed)).status).toBe(200);
    expect(await recipientTypes(703)).toEqual(['EMBED_USER']);
    await admin('POST', `${base}/703/recipients`, { recipients: [{ userId: 1 }] });
    await expectExpired(703, mailed);
  });
});

/** Base64url characters whose first four bits match: a final character that decodes to the same bytes. */
function sameBitsAs(char: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return alphabet[alphabet.indexOf(char) ^ 1] as string;
}

describe('an unsubscribe link is exact', () => {
  it('refuses every change to its text with 400, and removes nothing', async () => {
    const { USER: token } = await sendTokens(704);
    const [payload, signature] = token.split('.') as [string, string];
    const variants = {
      'last character, same bits': `${token.slice(0, -1)}${sameBitsAs(token.at(-1) as string)}`,
      'payload last character, same bits': `${payload.slice(0, -1)}${sameBitsAs(payload.at(-1) as string)}.${signature}`,
      'padding appended': `${token}=`,
      'padding on the payload': `${payload}=.${signature}`,
      '! appended': `${token}!`,
      '* appended': `${token}*`,
      'space appended': `${token} `,
      'space inserted': `${payload}.${signature.slice(0, 10)} ${signature.slice(10)}`,
      'newline inserted': `${payload}.${signature.slice(0, 10)}\n${signature.slice(10)}`,
      'standard base64 characters': `${payload}.${signature.replaceAll('-', '+').replaceAll('_', '/')}`,
    };
    for (const [change, altered] of Object.entries(variants)) {
      if (altered === token) continue;
      const answer = await post(altered);
      expect(answer.status, change).toBe(400);
      expect(answer.body.errors[0].path, change).toBe('token');
      expect((await page(altered)).status, change).toBe(400);
    }
    expect(await recipientTypes(704)).toEqual(['EMBED_USER', 'USER']);
    expect((await post(token)).status).toBe(200);
  });
});

describe('the body of an unsubscribe POST', () => {
  it('is held to 5 MiB like every body: 413, and nothing removed', async () => {
    const { EMBED_USER: token } = await sendTokens(705);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const tooLarge = await post(token, { body: 'x'.repeat(5 * 1024 * 1024 + 1), headers: form });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('payload_too_large');
    const sixMiB = await post(token, { body: 'x'.repeat(6 * 1024 * 1024), headers: form });
    expect(sixMiB.status).toBe(413);
    expect(await recipientTypes(705)).toContain('EMBED_USER');
    // At the limit, any body of any type is taken and ignored.
    const atLimit = await post(token, { body: 'x'.repeat(5 * 1024 * 1024), headers: form });
    expect(atLimit.status).toBe(200);
    expect(await recipientTypes(705)).not.toContain('EMBED_USER');
  });
});
