import { mkdir, mkdtemp, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '#lib/config';
import type { DeliveryJob } from '#lib/domain/runs/runs';
import { ensureTable } from '#lib/fixtures/load-fixture';
import { outboxSink, STALE_PARTIAL_MS } from '#lib/jobs/outbox-sink';
import { dispatchOnce } from '#lib/local/dispatch-loop';

/** The local outbox: a job's file is whole or absent, and what a killed writer leaves is swept. */

beforeAll(() => ensureTable());

const job = (i: number): DeliveryJob => ({
  jobId: `job-${String(i).padStart(4, '0')}`,
  runId: '20261123T080000000Z-s',
  deploymentId: 7,
  notificationId: 700,
  scheduledFor: '2026-11-23T08:00:00.000Z',
  attempt: 1,
  dashboard: { id: 70, publicId: 'sales', title: 'Sales' },
  notificationFormat: 'png',
  notificationAiSummary: false,
  filters: [{ member: 'Orders.note', operator: 'equals', value: 'x'.repeat(20_000) }],
  timeGrains: null,
  memberSwitchers: null,
  recipient: { type: 'USER', userId: i, email: `u${i}@example.com`, username: `u${i}` },
});

const files = async (dir: string) => (await readdir(dir)).sort();

describe('the outbox sink', () => {
  it('never shows a reader half a job, and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outbox-atomic-'));
    const sink = outboxSink(dir);
    let reading = true;
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        for (const name of (await readdir(dir)).filter((file) => file.endsWith('.json'))) {
          // A file under its final name is always a whole job.
          expect(JSON.parse(await readFile(join(dir, name), 'utf8')).jobId).toBe(name.replace('.json', ''));
          reads += 1;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let round = 0; round < 5; round++) await sink.send(Array.from({ length: 40 }, (_, i) => job(i)));
    reading = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(await files(dir)).toEqual(Array.from({ length: 40 }, (_, i) => `${job(i).jobId}.json`));
  });

  it('writes the same job sent twice at once (two passes over one run) as one whole file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outbox-twice-'));
    const sink = outboxSink(dir);
    await Promise.all([sink.send([job(1)]), sink.send([job(1)]), sink.send([job(1)])]);
    expect(await files(dir)).toEqual(['job-0001.json']);
  });

  it('has its stale temporary files swept by the next local pass, and leaves a writer in progress alone', async () => {
    const dir = config().outboxDir;
    await mkdir(dir, { recursive: true });
    const stale = Array.from({ length: 3 }, (_, i) => `${job(i).jobId}.json.${4242 + i}.partial`);
    const old = new Date(Date.now() - STALE_PARTIAL_MS - 60_000);
    for (const name of stale) {
      await writeFile(join(dir, name), '{"jobId": "job-');
      await utimes(join(dir, name), old, old);
    }
    await writeFile(join(dir, 'job-0009.json.inflight.partial'), '{');
    await writeFile(join(dir, 'job-0008.json'), '{}');

    await dispatchOnce(Date.now());
    expect(await files(dir)).toEqual(['job-0008.json', 'job-0009.json.inflight.partial']);
  });
});
