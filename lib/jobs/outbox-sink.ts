import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobSink } from '#lib/domain/dispatch';

/**
 * The local stand-in for the renderer's queue: each job is the file `<jobId>.json` in the outbox
 * folder. Written to a temporary name and renamed, so a reader never sees half a job, and a job sent
 * again replaces its own file.
 */
export function outboxSink(directory: string): JobSink {
  return {
    async send(jobs) {
      await mkdir(directory, { recursive: true });
      await Promise.all(
        jobs.map(async (job) => {
          const file = join(directory, `${job.jobId}.json`);
          const partial = `${file}.${process.pid}.partial`;
          await writeFile(partial, `${JSON.stringify(job, null, 2)}\n`);
          await rename(partial, file);
        }),
      );
    },
  };
}
