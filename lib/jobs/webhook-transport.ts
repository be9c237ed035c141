import { lookup, Resolver } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import {
  ATTEMPT_TIMEOUT_MS,
  type AttemptResult,
  RESPONSE_EXCERPT_LENGTH,
} from '#lib/domain/webhooks/messages';
import type { WebhookTransport } from '#lib/domain/webhooks/sender';
import { bareHost, refusedResolution, type UrlPolicy } from '#lib/domain/webhooks/url-policy';

/**
 * One attempt of a webhook message over HTTP(S). The address is checked at the moment of connecting,
 * on the answer the connection itself uses: a name that resolved to a public address when the webhook
 * was made and to a private one now (DNS rebinding) is refused here. Redirects are not followed (a 3xx
 * is a failed attempt: a redirect could lead anywhere); the answer must come within 15 seconds; only
 * the first characters of its body are kept.
 */

const REFUSED = 'refused: the host resolves to a loopback, private, link-local or metadata address';

class RefusedAddressError extends Error {}

/**
 * The addresses a host name resolves to: through the name servers given (`WEBHOOK_DNS_SERVERS`) when
 * there are any, else as the system resolves it (its hosts file included). Throws when it does not resolve.
 */
async function addressesOf(
  host: string,
  servers: string | undefined,
): Promise<{ address: string; family: 4 | 6 }[]> {
  if (!servers) {
    const answers = await lookup(host, { all: true });
    return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
  }
  const resolver = new Resolver();
  // Checked here, by the resolver, rather than in every function's configuration: only this code uses them.
  resolver.setServers(servers.split(',').map((server) => server.trim()));
  const [v4, v6] = await Promise.all([
    resolver.resolve4(host).catch(() => []),
    resolver.resolve6(host).catch(() => []),
  ]);
  const answers = [
    ...v4.map((address) => ({ address, family: 4 as const })),
    ...v6.map((address) => ({ address, family: 6 as const })),
  ];
  if (answers.length === 0) throw new Error(`${host} does not resolve`);
  return answers;
}

/** A `lookup` for the connection that refuses what the policy refuses, all answers considered. */
const checkedLookup =
  (policy: UrlPolicy, dnsServers: string | undefined): LookupFunction =>
  (hostname, options, callback) => {
    addressesOf(hostname, dnsServers)
      .then((answers) => {
        if (
          refusedResolution(
            answers.map((answer) => answer.address),
            policy,
          )
        ) {
          callback(new RefusedAddressError(REFUSED), '', 4);
          return;
        }
        // The connection goes to an address just checked, never to one resolved again.
        if (options.all) callback(null, answers);
        else callback(null, answers[0]?.address ?? '', answers[0]?.family ?? 4);
      })
      .catch((error: Error) => callback(error as NodeJS.ErrnoException, '', 4));
  };

/** The addresses a host resolves to (an IP literal to itself); none when it does not resolve. */
export async function resolveHost(host: string, dnsServers?: string): Promise<string[]> {
  if (isIP(host)) return [host];
  try {
    return (await addressesOf(host, dnsServers)).map((answer) => answer.address);
  } catch {
    return [];
  }
}

export function httpTransport(
  policy: UrlPolicy,
  dnsServers?: string,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
): WebhookTransport {
  return (url, headers, body) =>
    new Promise<AttemptResult>((resolve) => {
      const target = new URL(url);
      const host = bareHost(target);
      // A literal address is connected to without a lookup: it is checked here instead.
      if (isIP(host) && refusedResolution([host], policy)) {
        resolve({ statusCode: null, error: REFUSED });
        return;
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        target,
        {
          method: 'POST',
          headers: {
            ...headers,
            'content-length': Buffer.byteLength(body),
            'user-agent': 'notification-webhooks/1',
          },
          lookup: checkedLookup(policy, dnsServers),
          timeout: timeoutMs,
        },
        (response) => {
          let excerpt = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (excerpt.length < RESPONSE_EXCERPT_LENGTH) excerpt += chunk;
          });
          response.on('end', () =>
            resolve({
              statusCode: response.statusCode ?? 0,
              excerpt: excerpt.slice(0, RESPONSE_EXCERPT_LENGTH),
            }),
          );
          response.on('error', (error) => resolve({ statusCode: null, error: error.message }));
        },
      );
      // The whole attempt, answer included, within the timeout.
      const timer = setTimeout(
        () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      request.on('close', () => clearTimeout(timer));
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      request.on('error', (error) =>
        resolve({ statusCode: null, error: error instanceof RefusedAddressError ? REFUSED : error.message }),
      );
      request.end(body);
    });
}
