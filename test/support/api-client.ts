import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '#test/generated/api-types';
import type { ApiResponse, LocalApi } from '#test/support/local-api';
import { assertConformsToDescription } from '#test/support/openapi-check';

/**
 * The typed client the HTTP tests call the API with: openapi-fetch over the types openapi-typescript
 * made of the API description, so a route, parameter or body that is not described does not compile.
 * Its fetch checks every answer against the description, as the untyped helper does.
 */

export type ApiClient = Client<paths>;

const bodies = new WeakMap<Response, string>();

async function checkedFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const url = new URL(request.url);
  assertConformsToDescription(request.method, `${url.pathname}${url.search}`, {
    status: response.status,
    headers: response.headers,
    body,
    text,
  });
  bodies.set(response, text);
  return response;
}

export function apiClient(api: LocalApi, token?: string, headers: Record<string, string> = {}): ApiClient {
  return createClient<paths>({
    baseUrl: api.baseUrl,
    fetch: checkedFetch,
    headers: { ...headers, ...(token !== undefined && { authorization: `Bearer ${token}` }) },
  });
}

/** A typed call's outcome in the shape the untyped helper answers with. */
export function asApiResponse(result: { data?: unknown; error?: unknown; response: Response }): ApiResponse {
  const text = bodies.get(result.response) ?? '';
  return {
    status: result.response.status,
    headers: result.response.headers,
    body: text ? JSON.parse(text) : undefined,
    text,
  };
}
