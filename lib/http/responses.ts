import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; body: string };

/**
 * On every answer: no cache keeps an answer that holds a tenant's data or a credential's verdict,
 * and no browser guesses another content type than the one declared.
 */
export const securityHeaders = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...securityHeaders, ...headers },
    body: JSON.stringify(body),
  };
}

/** 204: no body, the same headers as every other answer. */
export const noContentResponse = (): HttpResponse => ({
  statusCode: 204,
  headers: { ...securityHeaders },
  body: '',
});
