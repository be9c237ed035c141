import { parseArgs } from 'node:util';
import { dispatchOnce } from '#lib/local/dispatch-loop';
import { DEFAULT_TABLE_NAME } from './local-env.ts';
import { useLocalUnsubscribeKey } from './local-keys.ts';

/**
 * `npm run dispatch -- --now <ISO instant>`: one dispatch pass as of that instant (default: now)
 * against the table the environment names, jobs to OUTBOX_DIR (or the queue DELIVERY_QUEUE_URL
 * names), one summary line. How a person tries a Sunday 09:00 schedule on a Tuesday.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { now: { type: 'string' } } });
  const now = values.now === undefined ? Date.now() : Date.parse(values.now);
  if (Number.isNaN(now))
    throw new Error(`--now ${values.now} is not an ISO-8601 instant (e.g. 2026-11-29T08:00:00Z)`);
  process.env.TABLE_NAME ??= DEFAULT_TABLE_NAME;
  // Jobs carry unsubscribe links signed with the same key as `npm start`'s.
  await useLocalUnsubscribeKey();
  const { line } = await dispatchOnce(now);
  console.log(line);
}

main().catch((error: unknown) => {
  console.error(`npm run dispatch failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
