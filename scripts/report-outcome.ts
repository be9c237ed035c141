import { parseArgs } from 'node:util';
import { startedApiUrl } from './local-env.ts';
import { localRendererKey, localRendererToken } from './local-keys.ts';

/**
 * `npm run outcome -- <jobId> failed "mailbox full" [--attempt N]`: reports a job's outcome to the
 * running `npm start` (the URL it recorded in `.local/api-url`) as the renderer does, with a platform token signed by the stand-in renderer's
 * local key (`npm start` trusts it). How a person plays the renderer by hand.
 */
async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { attempt: { type: 'string', default: '1' } },
  });
  const [jobId, status, error] = positionals;
  if (!jobId || (status !== 'delivered' && status !== 'failed')) {
    console.error('usage: npm run outcome -- <jobId> delivered|failed ["error text"] [--attempt N]');
    return 2;
  }
  // The running `npm start`, whatever port it took; PORT only when none recorded its URL.
  const base = (await startedApiUrl()) ?? `http://localhost:${process.env.PORT ?? 3000}`;
  const response = await fetch(`${base}/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${localRendererToken(await localRendererKey())}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ status, attempt: Number(values.attempt), ...(error !== undefined && { error }) }),
  });
  console.log(`${response.status} ${await response.text()}`.trim());
  return response.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`npm run outcome failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
