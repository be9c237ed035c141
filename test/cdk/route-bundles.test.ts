import { beforeAll, describe, expect, it } from 'vitest';
import {
  getApiSpecRoute,
  getNotificationRoute,
  type RouteFacts,
  routes,
  unsubscribeRoute,
} from '#lib/routes';
import { bundleAsDeployed } from '#test/support/bundle';

/**
 * The route table is one module, but each function bundles only its own route's facts: the others'
 * summaries, grants and timeouts, and the API description's texts, stay out of its bundle. A public
 * route's bundle holds no credential store and no token verifier. Bundled as the stack bundles them.
 */

interface Bundled {
  code: string;
  /** Our own modules by folder (`lib/auth`), packages by name (`aws-jwt-verify`). */
  parts: Set<string>;
}

const bundles = new Map<string, Bundled>();

beforeAll(async () => {
  for (const route of [getNotificationRoute, unsubscribeRoute, getApiSpecRoute]) {
    const { code, parts } = await bundleAsDeployed(`functions/${route.operation}.ts`);
    bundles.set(route.operation, { code: code.text, parts: new Set(parts.keys()) });
  }
}, 120_000);

const bundled = (route: RouteFacts) => bundles.get(route.operation) as Bundled;
const holds = (route: RouteFacts, part: string) =>
  [...bundled(route).parts].some((name) => name === part || name.startsWith(`${part}/`));

describe('what a function bundles of the route table', () => {
  it.each([getNotificationRoute, unsubscribeRoute])(
    '$operation holds its own facts and no other route’s',
    (route) => {
      const { code } = bundled(route);
      expect(code).toContain(route.summary);
      // Routes of the same path (another method) share that string; their summaries are their own.
      const others: RouteFacts[] = routes.filter((other) => other.operation !== route.operation);
      const elsewhere = others.filter((other) => other.path !== route.path);
      const found = (present: (other: RouteFacts) => boolean) =>
        others.filter(present).map((other) => other.operation);
      expect(found((other) => code.includes(other.summary))).toEqual([]);
      const quoted = (path: string) =>
        ['"', "'", '`'].some((quote) => code.includes(`${quote}${path}${quote}`));
      expect(found((other) => elsewhere.includes(other) && quoted(other.path))).toEqual([]);
    },
  );

  it.each([getNotificationRoute, unsubscribeRoute])(
    '$operation holds none of the API description’s texts',
    (route) => {
      expect(bundled(route).code).not.toContain('An internal error; the answer carries nothing more');
      expect(holds(route, 'lib/openapi')).toBe(false);
    },
  );

  it.each([unsubscribeRoute, getApiSpecRoute])(
    'the public $operation holds no credential store and no token verifier',
    (route) => {
      expect(holds(route, 'lib/auth')).toBe(false);
      expect(holds(route, 'aws-jwt-verify')).toBe(false);
    },
  );

  it('the API description holds no table access at all', () => {
    expect(holds(getApiSpecRoute, 'lib/store')).toBe(false);
    expect(holds(getApiSpecRoute, '@aws-sdk/client-dynamodb')).toBe(false);
  });

  it('an authenticated route holds the credential store its chain supplies', () => {
    expect(holds(getNotificationRoute, 'lib/auth')).toBe(true);
    expect(holds(getNotificationRoute, 'aws-jwt-verify')).toBe(true);
  });
});
