import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '#lib/log';

vi.hoisted(() => {
  process.env.LOG_FORMAT = 'short';
  process.env.LOG_LEVEL = 'info';
});

/** LOG_FORMAT=short, `npm start`'s default: one line a person reads, not the deployed JSON. */

const written = { stdout: [] as string[], stderr: [] as string[] };
for (const name of ['stdout', 'stderr'] as const) {
  vi.spyOn(process[name], 'write').mockImplementation((chunk: string | Uint8Array) => {
    written[name].push(String(chunk));
    return true;
  });
}
afterEach(() => {
  written.stdout.length = 0;
  written.stderr.length = 0;
});

describe('the short log format', () => {
  it("writes a request's line as its route, status and latency, then the other fields", () => {
    logger.appendKeys({ requestId: 'api-1', operation: 'get-notification' });
    logger.info('request served', { route: 'GET /v1/spec', status: 200, latencyMs: 3 });
    logger.warn('request unavailable', {
      route: 'POST /v1/deployments/{deploymentId}/notifications',
      status: 503,
      latencyMs: 1002,
      code: 'unavailable',
    });
    expect(written.stdout).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d GET \/v1\/spec 200 3 ms\n$/)]);
    expect(written.stderr).toEqual([
      expect.stringMatching(
        /^\d\d:\d\d:\d\d WARN POST \/v1\/deployments\/\{deploymentId\}\/notifications 503 1002 ms code=unavailable\n$/,
      ),
    ]);
  });

  it('writes any other entry as its message and fields, objects as JSON, empty fields left out', () => {
    logger.error('purge failed', {
      notificationId: 7,
      cause: { name: 'TimeoutError' },
      none: null,
      empty: '',
    });
    expect(written.stderr).toEqual([
      expect.stringMatching(
        /^\d\d:\d\d:\d\d ERROR purge failed notificationId=7 cause=\{"name":"TimeoutError"\}\n$/,
      ),
    ]);
  });
});
