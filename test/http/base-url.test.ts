import { describe, expect, it } from 'vitest';
import { freshForEachTest } from '#test/support/fresh-module';
import { apiEvent } from '#test/support/middleware';

/** The base URL links in an answer start with: as the client reached the API, or relative when unsure. */

// Loaded in each test: the host pattern is built when the module loads.
const baseUrl = freshForEachTest(() => import('#lib/http/base-url'));
const baseUrlOf: typeof import('#lib/http/base-url').baseUrlOf = (event) => baseUrl().baseUrlOf(event);
const withHeaders = (headers: Record<string, string>) => baseUrlOf(apiEvent({ headers }));

describe('baseUrlOf', () => {
  it("is https on API Gateway's domain name when no header names a host", () => {
    expect(withHeaders({})).toBe('https://api.test.example');
  });

  it('takes the Host header, with its port, over the domain name', () => {
    expect(withHeaders({ host: 'localhost:3000' })).toBe('https://localhost:3000');
    expect(withHeaders({ host: '[::ffff:10.0.0.1]:8443' })).toBe('https://[::ffff:10.0.0.1]:8443');
  });

  it('prefers the host and scheme a proxy forwards, the first of each list', () => {
    const forwarded = {
      'x-forwarded-host': ' proxy.example.com , other.example',
      'x-forwarded-proto': 'HTTP,https',
    };
    expect(withHeaders({ ...forwarded, host: 'api.example.com' })).toBe('http://proxy.example.com');
  });

  it('adds the stage to the path, unless it is the default stage', () => {
    const event = apiEvent();
    const staged = { ...event, requestContext: { ...event.requestContext, stage: 'beta 2' } };
    expect(baseUrlOf(staged)).toBe('https://api.test.example/beta%202');
  });

  it.each([
    'evil.example/phish',
    'user@evil.example',
    'evil example',
    '.example',
    'api.example.com:123456',
    '[::1',
    '[evil.example]',
  ])('is relative when the host is %j, which no URL should be built from', (host) => {
    expect(withHeaders({ host })).toBe('/');
  });

  it('is relative for a scheme other than http or https', () => {
    expect(withHeaders({ 'x-forwarded-proto': 'javascript' })).toBe('/');
  });

  it('takes the host from the headers of an event without request context, and is relative without either', () => {
    expect(baseUrlOf(apiEvent({ headers: { host: 'api.example.com' }, requestContext: undefined }))).toBe(
      'https://api.example.com',
    );
    expect(baseUrlOf(apiEvent({ headers: undefined, requestContext: undefined }))).toBe('/');
  });
});
