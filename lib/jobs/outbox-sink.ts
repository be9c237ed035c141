import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobSink } from '#lib/domain/dispatch/dispatch-ports';

const PARTIAL_SUFFIX = '.partial';
/** A job's file is written in milliseconds: a temporary file this old belongs to a writer that died. */
export const STALE_PARTIAL_MS = 60_000;

/**
 * The local stand-in for the renderer's queue: each job is the file `<jobId>.json` in the outbox
 * folder. Written to a temporary name of its own and renamed, so a reader never sees half a job, and a
 * job sent again replaces its own file. A writer killed between the two leaves its temporary file;
 * sweepOutbox removes those.
 */
export function outboxSink(directory: string): JobSink {
  return {
    async send(jobs) {
      await mkdir(directory, { recursive: true });
      await Promise.all(
        jobs.map(async (job) => {
          const file = join(directory, `${job.jobId}.json`);
          // Random, not the process id: two sends of the same job at once must not share a file.
          const partial = `${file}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
          await writeFile(partial, `${JSON.stringify(job, null, 2)}\n`);
          await rename(partial, file);
        }),
      );
    },
  };
}

/** Removes the temporary files of writers that died mid-send; each local dispatch pass starts with it. */
export async function sweepOutbox(directory: string, now = Date.now()): Promise<void> {
  const names = await readdir(directory).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.endsWith(PARTIAL_SUFFIX))
      .map(async (name) => {
        const path = join(directory, name);
        // Gone meanwhile (renamed by its writer, or swept by another pass): nothing to do.
        const info = await stat(path).catch(() => undefined);
        if (info && now - info.mtimeMs > STALE_PARTIAL_MS) await unlink(path).catch(() => {});
      }),
  );
}
