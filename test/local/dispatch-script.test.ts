import { execFile } from 'node:child_process';
import { mkdtemp, readdir } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { startDispatchLoop } from '#lib/local/dispatch-loop';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { notificationItems } from '#lib/store/notifications/notification-items';
import { dailyUtc } from '#test/support/fixtures';
import { DEMO_FIXTURE, readFixture } from '../../scripts/local-env.ts';

/** The README's walk-through of `npm run dispatch -- --now <ISO instant>` against the demo fixture. */

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/dispatch.ts', import.meta.url));
let outbox: string;

const dispatch = (...args: string[]) =>
  run(process.execPath, [script, ...args], { env: { ...process.env, OUTBOX_DIR: outbox } });

beforeAll(async () => {
  outbox = await mkdtemp(join(tmpdir(), 'dispatch-script-'));
  await ensureTable();
  const demo = await readFixture(DEMO_FIXTURE);
  await loadFixture(demo);
  // As if notification 700 (daily 09:00 Berlin) had been saved on the evening before 2026-11-24.
  const { recipients: _, ...notification } = demo.notifications.find((n) => n.id === 700) ?? {};
  const items = notificationItems(notification as never, Date.parse('2026-11-23T18:00:00.000Z'));
  await batchWriteAll(items.map((item) => ({ PutRequest: { Item: item } })));
});

describe('npm run dispatch', () => {
  it('runs one pass as of --now, prints one line, and writes one job per queued delivery', async () => {
    const { stdout } = await dispatch('--now', '2026-11-24T08:00:30Z');
    expect(stdout.trim()).toBe(
      'dispatch 2026-11-24T08:00:30.000Z: 1 due, 1 fired, 2 queued, 1 skipped, 0 missed, 0 resumed, 0 unfinished, 0 handed on, 0 left, 0 failed',
    );
    const jobs = await readdir(outbox);
    expect(jobs).toHaveLength(2);
    expect(jobs.every((file) => /^7\.\d+\.\d{8}T\d{9}Z-s\.[0-9a-f]{32}\.json$/.test(file))).toBe(true);

    const again = await dispatch('--now', '2026-11-24T08:00:50Z');
    expect(again.stdout).toMatch(/: 0 due, 0 fired, 0 queued/);
    expect(await readdir(outbox)).toHaveLength(2);
  });

  it('refuses without DYNAMODB_ENDPOINT (exit 2), naming it, rather than reach for a table in AWS', async () => {
    const { DYNAMODB_ENDPOINT: _, ...withoutEndpoint } = process.env;
    const refused = run(process.execPath, [script, '--now', '2026-11-24T08:00:30Z'], {
      env: { ...withoutEndpoint, OUTBOX_DIR: outbox, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' },
    });
    await expect(refused).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/DYNAMODB_ENDPOINT is not set[\s\S]*npm start[\s\S]*--table-in-aws/),
    });
  });

  it('refuses an instant it cannot read, with exit code 1', async () => {
    await expect(dispatch('--now', 'next tuesday')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--now next tuesday is not an ISO-8601 instant'),
    });
  });
});

/**
 * A DynamoDB endpoint in front of the engine that counts the fires in flight: each fire starts with
 * one Query of its notification's partition (the due index's Queries name an index). Those Queries
 * are held until none has arrived for a while, so every fire the pass runs at once is waiting there
 * together: the most seen at once is the pass's concurrency, whatever the machine's speed.
 */
async function fireCountingEndpoint(engine: string) {
  let inFlight = 0;
  let peak = 0;
  const held: (() => void)[] = [];
  let quiet: NodeJS.Timeout | undefined;
  const server = createServer(async (incoming, answer) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const fire =
      incoming.headers['x-amz-target'] === 'DynamoDB_20120810.Query' &&
      !JSON.parse(body.toString()).IndexName;
    if (fire) {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise<void>((release) => {
        held.push(release);
        clearTimeout(quiet);
        quiet = setTimeout(() => {
          for (const go of held.splice(0)) go();
        }, 300);
      });
    }
    const forwarded = request(
      new URL(incoming.url ?? '/', engine),
      { method: incoming.method, headers: incoming.headers },
      (reply) => {
        if (fire) inFlight -= 1;
        answer.writeHead(reply.statusCode ?? 500, reply.headers);
        reply.pipe(answer);
      },
    );
    forwarded.end(body);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    peak: () => peak,
    close: () => new Promise((closed) => server.close(closed)),
  };
}

describe('npm run dispatch at DISPATCH_CONCURRENCY', () => {
  it('fires as many notifications at once as DISPATCH_CONCURRENCY says, not its own number', async () => {
    // Ten notifications due at 2026-11-25 10:00 UTC, saved an hour before.
    const due = Array.from({ length: 10 }, (_, i) => dailyUtc(9100 + i, 10, 0));
    await batchWriteAll(
      due.flatMap((notification) =>
        notificationItems(notification, Date.parse('2026-11-25T09:00:00Z')).map((item) => ({
          PutRequest: { Item: item },
        })),
      ),
    );
    const proxy = await fireCountingEndpoint(process.env.DYNAMODB_ENDPOINT as string);
    try {
      const { stdout } = await run(process.execPath, [script, '--now', '2026-11-25T10:00:30Z'], {
        env: {
          ...process.env,
          OUTBOX_DIR: outbox,
          DYNAMODB_ENDPOINT: proxy.endpoint,
          DISPATCH_CONCURRENCY: '3',
        },
      });
      expect(stdout).toMatch(/: 1\d due, 10 fired, /);
    } finally {
      await proxy.close();
    }
    expect(proxy.peak()).toBe(3);
  });
});

// After the walk-through: this pass runs as of the real clock, which may be any day.
describe('the dispatcher under npm start', () => {
  it('runs a pass at once and prints its one line', async () => {
    const lines: string[] = [];
    const loop = startDispatchLoop((line) => lines.push(line));
    try {
      await expect.poll(() => lines.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    } finally {
      loop.stop();
    }
    expect(lines[0]).toMatch(
      /^dispatch \d{4}-\d{2}-\d{2}T[\d:.]+Z: \d+ due, \d+ fired, \d+ queued, .* 0 failed$/,
    );
  });
});
