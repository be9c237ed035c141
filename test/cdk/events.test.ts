import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { routeKey, routes } from '#lib/routes';
import { invoke, printable, readEvent } from '../../scripts/invoke.ts';
import { DEMO_FIXTURE, readFixture } from '../../scripts/local-env.ts';

const successStatus: Record<string, number> = {
  'create-notification': 201,
  'delete-notification': 204,
  'remove-recipients': 204,
};

/** The example events are documentation (`npm run invoke`, `sam local invoke -e`): they must keep working. */
describe('the example events in events/', () => {
  beforeAll(async () => {
    await ensureTable();
    await loadFixture(await readFixture(DEMO_FIXTURE));
  });

  it.each(routes.map((route) => [route.operation, route] as const))(
    'events/%s.json is a request its route serves and the demo fixture answers with success',
    async (operation, route) => {
      const event = await readEvent(`events/${operation}.json`, operation);
      expect(event.routeKey).toBe(routeKey(route));
      expect(event.requestContext.http.method).toBe(route.method);
      const response = printable(await invoke(operation, event));
      const status = successStatus[operation] ?? 200;
      expect(response).toMatchObject(
        status === 204
          ? { statusCode: 204 }
          : { statusCode: status, headers: { 'content-type': 'application/json' } },
      );
    },
  );
});
