import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** A host name or address with an optional port: anything else in a header is not trusted to build a URL. */
const hostPattern = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

const firstOf = (value: string | undefined) => value?.split(',')[0]?.trim();

/**
 * The base URL a request reached the API at, as a client would write it: the scheme and host a proxy
 * in front names (`X-Forwarded-Proto`, `X-Forwarded-Host`; API Gateway sets the first), else the
 * request's own host, plus the stage's path unless it is the default stage. `/` (relative to wherever
 * the answer was fetched from) when the headers name no usable host.
 */
export function baseUrlOf(event: APIGatewayProxyEventV2): string {
  const headers = event.headers ?? {};
  const host =
    firstOf(headers['x-forwarded-host']) ?? firstOf(headers.host) ?? event.requestContext?.domainName;
  const proto = firstOf(headers['x-forwarded-proto'])?.toLowerCase() ?? 'https';
  if (!host || !hostPattern.test(host) || (proto !== 'http' && proto !== 'https')) return '/';
  const stage = event.requestContext?.stage;
  const stagePath = stage && stage !== '$default' ? `/${encodeURIComponent(stage)}` : '';
  return `${proto}://${host}${stagePath}`;
}
