import { describe, expect, it } from 'vitest';
import type { Principal } from '#lib/domain/principal';
import type { AuthorizedContext, CallerPolicy } from '#lib/http/authorize';
import { principals } from '#test/support/domain-fixtures';
import { freshForEachTest } from '#test/support/fresh-module';
import { apiEvent, throughMiddlewares } from '#test/support/middleware';

/** Who may call each kind of route, decided before anything reads the request. */

// Loaded in each test: the table of who each policy allows is built when the module loads.
const authorization = freshForEachTest(() => import('#lib/http/authorize'));
const authorize: typeof import('#lib/http/authorize').authorize = (...args) =>
  authorization().authorize(...args);

/** An authenticator that knows one caller, and the Authorization headers it was handed. */
function authenticatorOf(principal: Principal) {
  const handed: (string | undefined)[] = [];
  const authenticator = () => async (authorization: string | undefined) => {
    handed.push(authorization);
    return principal;
  };
  return { authenticator, handed };
}

const callerSeen = async (policy: CallerPolicy, principal: Principal) => {
  const { context } = await throughMiddlewares(
    [authorize(policy, authenticatorOf(principal).authenticator)],
    apiEvent({ headers: { authorization: 'Bearer t' } }),
  );
  return (context as AuthorizedContext).principal;
};

describe('authorize', () => {
  it.each([
    ['admin', 'admin'],
    ['embed-read', 'acme'],
    ['embed-read', 'admin'],
    ['embed-read', 'screenshot'],
    ['renderer', 'screenshot'],
  ] as const)('lets a %s route be called by %s, handing the caller on', async (policy, caller) => {
    expect(await callerSeen(policy, principals[caller])).toEqual(principals[caller]);
  });

  it.each([
    ['admin', 'member'],
    ['admin', 'deactivatedAdmin'],
    ['admin', 'screenshot'],
    ['embed-read', 'member'],
    ['renderer', 'creator'],
    ['renderer', 'admin'],
  ] as const)('refuses a %s route to %s as forbidden', async (policy, caller) => {
    await expect(callerSeen(policy, principals[caller])).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('authenticates the Authorization header, or no credential when the event has no headers', async () => {
    const { authenticator, handed } = authenticatorOf(principals.admin);
    await throughMiddlewares(
      [authorize('admin', authenticator)],
      apiEvent({ headers: { authorization: 'Api-Key sk-1' } }),
    );
    await throughMiddlewares([authorize('admin', authenticator)], apiEvent({ headers: undefined }));
    expect(handed).toEqual(['Api-Key sk-1', undefined]);
  });
});
