import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#lib/config';
import { renderOutbox } from '#lib/local/renderer';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { freshClaims, generateSigningKey, signJwt } from '#test/support/tokens';

/** `npm start`'s stand-in renderer: outbox jobs become .eml messages and delivered outcomes. */

const ISSUER = 'https://renderer.test.example';
const key = generateSigningKey('renderer-test', 'ES256');
const base = '/v1/deployments/7/notifications/700';
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    deployments: [{ id: 7, name: 'Production' }],
    dashboards: [{ id: 70, deploymentId: 7, publicId: 'sales', title: 'Sales & Margin', published: true }],
    trustedIssuers: [
      { kind: 'platform', issuer: ISSUER, audience: 'platform', jwks: { keys: [key.publicJwk] } },
    ],
    notifications: [
      {
        id: 700,
        deploymentId: 7,
        dashboardId: 70,
        scheduleType: 'DAILY',
        hour: 9,
        isEnabled: false,
        recipients: [{ userId: 1 }],
      },
    ],
  });
});

afterAll(() => api.close());

describe('the stand-in renderer', () => {
  it('writes each job as a MIME message with one-click unsubscribe headers and reports it delivered', async () => {
    const run = (await api.request('POST', `${base}/send`, { token: ADMIN_KEY })).body;
    const mailDir = await mkdtemp(join(tmpdir(), 'mail-'));
    const options = {
      outboxDir: config().outboxDir,
      mailDir,
      baseUrl: api.baseUrl,
      token: () =>
        signJwt(freshClaims({ iss: ISSUER, aud: 'platform', sub: 'renderer', session: 'screenshot' }), key),
    };
    const handled = new Set<string>();
    const reported = await renderOutbox(options, handled);
    expect(reported).toHaveLength(1);
    const [file] = await readdir(mailDir);
    expect(file).toBe(`${reported[0]}.eml`);
    const message = await readFile(join(mailDir, file as string), 'utf8');
    const headers = message.split('\r\n\r\n')[0]?.replace(/\r\n\s+/g, ' ') ?? '';
    expect(headers).toMatch(/^To: ada@example\.com$/m);
    expect(headers).toMatch(/^Subject: Sales & Margin: your scheduled dashboard$/m);
    expect(headers).toMatch(
      /^List-Unsubscribe: <http:\/\/api\.test\.example\/v1\/unsubscribe\?token=[\w-]+\.[\w-]+>$/m,
    );
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(headers).toMatch(/^MIME-Version: 1\.0$/m);
    const runs = (await api.request('GET', `${base}/runs`, { token: ADMIN_KEY })).body.items;
    expect(runs.find((r: { runId: string }) => r.runId === run.runId)).toMatchObject({
      status: 'completed',
      recipients: { delivered: 1 },
    });
    // A second sweep handles nothing again.
    expect(await renderOutbox(options, handled)).toEqual([]);
  });
});
