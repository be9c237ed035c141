import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { routeKey, routes } from '#lib/routes';
import { invoke, printable, readEvent } from '../../scripts/invoke.ts';
import { DEMO_FIXTURE, readFixture } from '../../scripts/local-env.ts';

/** The example events are documentation (`npm run invoke`, `sam local invoke -e`): they must keep working. */
describe('the example events in events/', () => {
  beforeAll(async () => {
    await ensureTable();
    await loadFixture(await readFixture(DEMO_FIXTURE));
  });

  it.each(routes.map((route) => [route.operation, route] as const))(
    'events/%s.json is a request its route serves and the demo fixture answers with 200',
    async (operation, route) => {
      const event = await readEvent(`events/${operation}.json`, operation);
      expect(event.routeKey).toBe(routeKey(route));
      expect(event.requestContext.http.method).toBe(route.method);
      const response = printable(await invoke(operation, event));
      expect(response).toMatchObject({ statusCode: 200, headers: { 'content-type': 'application/json' } });
    },
  );
});
