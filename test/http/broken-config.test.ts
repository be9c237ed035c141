import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { functionsFrom } from '#lib/local/handlers';
import { createLocalApi } from '#lib/local/http-adapter';
import { ADMIN_KEY } from '#test/support/fixtures';
import { captureLogs, type LogCapture } from '#test/support/log-capture';

/** A deployment without the table's name: every request fails, and the log says which variable to set. */

vi.hoisted(() => {
  delete process.env.TABLE_NAME;
  process.env.LOG_LEVEL = 'error';
});

const PATH = '/v1/deployments/7/notifications/700';
const servers: ReturnType<typeof createLocalApi>[] = [];
let logs: LogCapture;

async function serve(
  resolveHandler: Parameters<typeof createLocalApi>[0]['resolveHandler'],
): Promise<string> {
  const server = createLocalApi({ resolveHandler });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let baseUrl: string;
beforeAll(async () => {
  baseUrl = await serve(functionsFrom(new URL('../../functions/', import.meta.url)));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});
afterEach(() => logs?.end());

const put = (base: string) =>
  fetch(`${base}${PATH}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: '{"hour":3}',
  });

describe('a broken configuration', () => {
  it('answers 500 internal and logs an error line naming the variable', async () => {
    logs = captureLogs();
    const response = await put(baseUrl);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { requestId: string };
    expect(body).toEqual({
      message: 'Internal server error',
      code: 'internal',
      requestId: expect.any(String),
    });
    const line = logs.lines().find((candidate) => candidate.requestId === body.requestId);
    expect(line).toMatchObject({ level: 'ERROR', message: 'request failed', status: 500 });
    expect(line?.error).toMatchObject({
      name: 'ConfigurationError',
      message: expect.stringContaining('TABLE_NAME'),
    });
    expect(logs.text()).not.toContain(ADMIN_KEY);
  });
});

describe('a function that cannot be loaded', () => {
  it('answers 500 and logs why, rather than failing silently', async () => {
    logs = captureLogs();
    const base = await serve(async () => {
      throw new SyntaxError("The requested module '#lib/missing' does not provide an export named 'gone'");
    });
    const response = await put(base);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { requestId: string };
    expect(body).toMatchObject({ code: 'internal' });
    const line = logs.lines().find((candidate) => candidate.requestId === body.requestId);
    expect(line).toMatchObject({
      level: 'ERROR',
      message: 'function failed',
      operation: 'update-notification',
    });
    expect(line?.error).toMatchObject({
      name: 'SyntaxError',
      message: expect.stringContaining('#lib/missing'),
    });
  });
});
