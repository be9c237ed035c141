import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Fixture } from '#lib/fixtures/fixture';
import { parseFixture } from '#lib/fixtures/fixture';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { functionsFrom } from '#lib/local/handlers';
import { createLocalApi, type ResolveHandler } from '#lib/local/http-adapter';
import { assertConformsToDescription } from '#test/support/openapi-check';

export interface LocalApi {
  baseUrl: string;
  /** Sends a request; `body` is JSON-encoded unless it is a string. */
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  token?: string;
  /** A full Authorization header value, used as it is. */
  authorization?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON by path; a wrong path fails the assertion.
  body: any;
  text: string;
}

/**
 * The API as users reach it locally: the file's own table, the fixture loaded, and the local HTTP
 * adapter serving the real handlers over a real socket (`resolveHandler` may wrap them, as the bench
 * does to time each invocation).
 */
export async function startLocalApi(
  fixtureInput: unknown = {},
  resolveHandler: ResolveHandler = functionsFrom(new URL('../../functions/', import.meta.url)),
  /** Every function's timeout, instead of its route's: a test of time running out need not wait long. */
  timeoutMs?: number,
): Promise<LocalApi & { fixture: Fixture }> {
  const fixture = parseFixture(fixtureInput);
  if (fixture.trustedIssuers.length > 0) process.env.TRUSTED_ISSUERS = JSON.stringify(fixture.trustedIssuers);
  await ensureTable();
  await loadFixture(fixture);

  const server = createLocalApi({ resolveHandler, timeoutMs });
  return { ...(await serveLocally(server, assertConformsToDescription)), fixture };
}

/**
 * Serves `server` on a free port of 127.0.0.1 and sends it requests as a client would (fetch keeps the
 * connection alive between them). `check` sees every answer: the tests hold each to the API description.
 */
async function serveLocally(
  server: Server,
  check?: (method: string, path: string, answer: ApiResponse) => void,
): Promise<LocalApi> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const answer = { status: response.status, headers: response.headers, body: parsed, text };
    check?.(method, path, answer);
    return answer;
  }

  return {
    baseUrl,
    request,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
