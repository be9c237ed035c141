import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleFixture } from '#test/functions/lifecycle-helpers';
import { ADMIN_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/** `npm run client`: the typed client a user generates from a running API's description compiles and works. */

/** Not spawnSync: the API answering the script runs in this process. */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
let api: LocalApi;
let out: string;

beforeAll(async () => {
  api = await startLocalApi(lifecycleFixture);
  // Inside the project, so that the generated client finds openapi-fetch as a user's project would.
  await mkdir(`${root}.local`, { recursive: true });
  out = await mkdtemp(`${root}.local/client-test-`);
});
afterAll(async () => {
  await api.close();
  await rm(out, { recursive: true, force: true });
});

describe('npm run client', () => {
  it("writes, from a running API's /v1/spec, a client that type-checks and reads a notification", async () => {
    // Each rejects, with its output, if the command exits non-zero.
    await run(
      process.execPath,
      ['scripts/build-client.ts', '--from', `${api.baseUrl}/v1/spec`, '--out', out],
      { cwd: root },
    );
    await run(
      `${root}node_modules/.bin/tsc`,
      [
        '--ignoreConfig',
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--target',
        'es2024',
        '--allowImportingTsExtensions',
        `${out}/admin-api.ts`,
      ],
      { cwd: root },
    );

    const { adminApi } = await import(`${out}/admin-api.ts`);
    const { data, response } = await adminApi(api.baseUrl, ADMIN_KEY).GET(
      '/v1/deployments/{deploymentId}/notifications/{id}',
      { params: { path: { deploymentId: 7, id: 700 } } },
    );
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ id: 700, deploymentId: 7 });
  });
});
