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
/** Caller text as long and as hostile as the inputs allow: a 3,000-character title, line breaks in names. */
const LONG_TITLE = `Umsätze ${'x'.repeat(3_000)} 終わり`;
const BROKEN_TITLE = 'Sales\r\nBcc: eve@evil.example\r\n\r\nInjected line';
const BROKEN_NAME = 'Zoë\r\nBcc: eve@evil.example';
const LONG_EXTERNAL_ID = `${'e'.repeat(240)}@acme.example`;
let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi({
    users: [
      ...consoleUsers,
      { id: 5, email: 'zoe@example.com', username: BROKEN_NAME, role: 'member', active: true },
    ],
    deployments: [{ id: 7, name: 'Production' }],
    dashboards: [
      { id: 70, deploymentId: 7, publicId: 'sales', title: 'Sales & Margin', published: true },
      {
        id: 71,
        deploymentId: 7,
        publicId: 'long',
        title: LONG_TITLE,
        published: true,
        sharedWithTenants: ['acme'],
      },
      { id: 72, deploymentId: 7, publicId: 'broken', title: BROKEN_TITLE, published: true },
    ],
    embedTenants: [{ name: 'acme', issuer: 'https://auth.acme.example', jwks: { keys: [] } }],
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
      {
        id: 710,
        deploymentId: 7,
        dashboardId: 71,
        scheduleType: 'DAILY',
        hour: 9,
        isEnabled: false,
        recipients: [{ userId: 5 }, { embedTenantName: 'acme', externalId: LONG_EXTERNAL_ID }],
      },
      {
        id: 720,
        deploymentId: 7,
        dashboardId: 72,
        scheduleType: 'DAILY',
        hour: 9,
        isEnabled: false,
        recipients: [{ userId: 5 }],
      },
    ],
  });
});

const rendererOptions = async () => ({
  outboxDir: config().outboxDir,
  mailDir: await mkdtemp(join(tmpdir(), 'mail-')),
  baseUrl: api.baseUrl,
  token: () =>
    signJwt(freshClaims({ iss: ISSUER, aud: 'platform', sub: 'renderer', session: 'screenshot' }), key),
});

interface Job {
  jobId: string;
  runId: string;
  recipient: { type: string; email: string };
  unsubscribeUrl: string;
}

/** The jobs of a new send-now run of notification `id`, rendered: each with its message's bytes. */
async function renderedSend(id: number): Promise<{ job: Job; message: Buffer }[]> {
  const run = (await api.request('POST', `/v1/deployments/7/notifications/${id}/send`, { token: ADMIN_KEY }))
    .body;
  const outbox = config().outboxDir;
  const jobs = (
    await Promise.all(
      (
        await readdir(outbox)
      ).map(async (file) => JSON.parse(await readFile(join(outbox, file), 'utf8')) as Job),
    )
  ).filter((job) => job.runId === run.runId);
  const options = await rendererOptions();
  await renderOutbox(options, new Set());
  return Promise.all(
    jobs.map(async (job) => ({ job, message: await readFile(join(options.mailDir, `${job.jobId}.eml`)) })),
  );
}

const CALLER_TEXT_FIELDS = ['To', 'Subject', 'List-Unsubscribe'];

/**
 * The message read as RFC 5322 says: lines end in CRLF and nothing else; every line is at most 998
 * octets; the header fields unfolded (CRLF before a space removed), and
 * encoded-words decoded (the space between two of them is not text). A field may appear only once.
 */
function parseMessage(message: Buffer) {
  const text = message.toString('latin1');
  const lines = text.split('\r\n');
  expect(lines.at(-1)).toBe('');
  for (const line of lines) {
    expect(line).not.toMatch(/[\r\n]/);
    expect(Buffer.byteLength(line, 'latin1')).toBeLessThanOrEqual(998);
  }
  const headerLines = lines.slice(0, lines.indexOf(''));
  const fields = new Map<string, string>();
  for (const field of headerLines.join('\r\n').split(/\r\n(?![ \t])/)) {
    const [, name, value] = /^([!-9;-~]+):[ \t]?([\s\S]*)$/.exec(field) ?? [];
    expect(name, field).toBeDefined();
    expect(fields.has(name as string), name).toBe(false);
    // The fields that carry caller text keep to the recommended 78 characters a line.
    // An address alone may pass them: it cannot be folded.
    if (CALLER_TEXT_FIELDS.includes(name as string)) {
      for (const line of field.split('\r\n')) {
        if (!/^(To:)? <[^\s<>]+@[^\s<>]+>$/.test(line)) expect(line.length, line).toBeLessThanOrEqual(78);
      }
    }
    fields.set(name as string, (value as string).replace(/\r\n(?=[ \t])/g, ''));
  }
  const decoded = (name: string) =>
    (fields.get(name) ?? '')
      .replace(/(\?=)[ \t]+(?==\?)/g, '$1')
      .replace(/=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=/g, (_, base64: string) =>
        Buffer.from(base64, 'base64').toString('utf8'),
      );
  return { lines, fields, decoded };
}

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
    const { delivered: reported, bounced } = await renderOutbox(options, handled);
    expect(reported).toHaveLength(1);
    expect(bounced).toEqual([]);
    const [file] = await readdir(mailDir);
    expect(file).toBe(`${reported[0]}.eml`);
    const message = await readFile(join(mailDir, file as string), 'utf8');
    const headers = message.split('\r\n\r\n')[0]?.replace(/\r\n\s+/g, ' ') ?? '';
    expect(headers).toMatch(/^To: ada <ada@example\.com>$/m);
    expect(headers).toMatch(/^Subject: Sales & Margin: your scheduled dashboard$/m);
    // A link too long for one line is folded inside its angle brackets (RFC 2369: not part of it).
    const unsubscribe = /^List-Unsubscribe: ([^\r]*(\r\n [^\r]*)*)$/m.exec(
      message.split('\r\n\r\n')[0] ?? '',
    );
    expect(unsubscribe?.[1]?.replace(/\r\n /g, '')).toMatch(
      /^<http:\/\/api\.test\.example\/v1\/unsubscribe\?token=[\w-]+\.[\w-]+>$/,
    );
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(headers).toMatch(/^MIME-Version: 1\.0$/m);
    const runs = (await api.request('GET', `${base}/runs`, { token: ADMIN_KEY })).body.items;
    expect(runs.find((r: { runId: string }) => r.runId === run.runId)).toMatchObject({
      status: 'completed',
      recipients: { delivered: 1 },
    });
    // A second sweep handles nothing again.
    expect(await renderOutbox(options, handled)).toEqual({ delivered: [], bounced: [] });
  });

  it('writes RFC 5322 messages: CRLF only, no line over 998 octets, long and non-ASCII text encoded and folded', async () => {
    const rendered = await renderedSend(710);
    expect(rendered).toHaveLength(2);
    for (const { job, message } of rendered) {
      const { decoded, fields } = parseMessage(message);
      expect(decoded('Subject')).toBe(`${LONG_TITLE}: your scheduled dashboard`);
      expect(decoded('To')).toBe(
        job.recipient.type === 'USER'
          ? 'Zoë  Bcc: eve@evil.example <zoe@example.com>'
          : `<${LONG_EXTERNAL_ID}>`,
      );
      // Inside its angle brackets a URL's folding whitespace is no part of it (RFC 2369).
      expect(decoded('List-Unsubscribe').replace(/[ \t]/g, '')).toBe(`<${job.unsubscribeUrl}>`);
      expect(fields.get('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    }
    const embed = rendered.find(({ job }) => job.recipient.type === 'EMBED_USER');
    expect(embed?.job.unsubscribeUrl.length).toBeGreaterThan(78);
  });

  it('keeps caller text from starting a header or a line of its own', async () => {
    const [rendered] = await renderedSend(720);
    const { lines, fields, decoded } = parseMessage(rendered?.message as Buffer);
    expect([...fields.keys()].sort()).toEqual([
      'Content-Type',
      'Date',
      'From',
      'List-Unsubscribe',
      'List-Unsubscribe-Post',
      'MIME-Version',
      'Message-ID',
      'Subject',
      'To',
    ]);
    expect(decoded('Subject')).toBe(
      'Sales  Bcc: eve@evil.example    Injected line: your scheduled dashboard',
    );
    expect(decoded('To')).toBe('Zoë  Bcc: eve@evil.example <zoe@example.com>');
    for (const line of lines) expect(line).not.toMatch(/^(Bcc:|Injected line)/);
  });
});
