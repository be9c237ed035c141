import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UnsubscribeTarget } from '#lib/domain/unsubscribe';
import { freshForEachTest } from '#test/support/fresh-module';

/** Loaded anew in each test: the helpers it defines on import then count as checked by the tests below. */
const tokens = freshForEachTest(() => import('#lib/domain/unsubscribe'));

/** Tokens signed and read back with a fixed key; a store that only records what it is asked to remove. */

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);
const user: UnsubscribeTarget = { deploymentId: 7, id: 700, recipient: { type: 'USER', userId: 3 } };
const embedUser: UnsubscribeTarget = {
  deploymentId: 7,
  id: 700,
  recipient: { type: 'EMBED_USER', embedTenantName: 'acme', normalizedExternalId: 'ann@x.example' },
};

function recordingStore() {
  const removed: UnsubscribeTarget[] = [];
  return {
    removed,
    store: { removeSubscription: async (target: UnsubscribeTarget) => void removed.push(target) },
  };
}

/** A token with the given parts, signed as the service signs: only the shape can be wrong. */
const signedPayload = (parts: unknown, json = JSON.stringify(parts)) => {
  const payload = Buffer.from(json).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(`unsubscribe.${payload}`).digest('base64url')}`;
};

async function refusalOf(token: string) {
  const { store, removed } = recordingStore();
  const error = await tokens()
    .unsubscribe(store, token, key)
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(error).toMatchObject({
    name: 'ValidationError',
    problems: [{ path: 'token', message: 'is not an unsubscribe token of this service' }],
  });
  expect(removed).toEqual([]);
}

describe('unsubscribe tokens', () => {
  it('remove exactly the recipient they name, with the same answer every time', async () => {
    for (const target of [user, embedUser]) {
      const { store, removed } = recordingStore();
      const token = tokens().unsubscribeToken(target, key);
      const answer = { unsubscribed: true, deploymentId: 7, notificationId: 700 };
      expect(await tokens().unsubscribe(store, token, key)).toEqual(answer);
      expect(await tokens().unsubscribe(store, token, key)).toEqual(answer);
      expect(removed).toEqual([target, target]);
    }
  });

  it('are the same for every message to one recipient, and differ between recipients', () => {
    expect(tokens().unsubscribeToken(user, key)).toBe(tokens().unsubscribeToken({ ...user }, key));
    expect(tokens().unsubscribeToken(user, key)).not.toBe(tokens().unsubscribeToken(embedUser, key));
    expect(tokens().unsubscribeToken(user, key)).not.toBe(tokens().unsubscribeToken(user, otherKey));
  });

  it('are refused when signed with another key, altered, truncated or padded', async () => {
    const token = tokens().unsubscribeToken(user, key);
    const [payload, signature] = token.split('.') as [string, string];
    await refusalOf(tokens().unsubscribeToken(user, otherKey));
    await refusalOf(`${tokens().unsubscribeToken(embedUser, key).split('.')[0]}.${signature}`);
    await refusalOf(`${payload}.${signature.slice(0, -2)}`);
    await refusalOf(`${payload}.${signature}.extra`);
    await refusalOf(payload);
    await refusalOf(`.${signature}`);
    await refusalOf('');
  });

  it('are refused when well signed but not of the shape the service issues', async () => {
    for (const parts of [
      { v: 1 },
      [2, 7, 700, 'U', 3],
      [1, 0, 700, 'U', 3],
      [1, 7, 1.5, 'U', 3],
      [1, 7, 700, 'U', 0],
      [1, 7, 700, 'U', 3, 'extra'],
      [1, 7, 700, 'E', 'acme'],
      [1, 7, 700, 'E', 'acme', 5],
      [1, 7, 700, 'E', 5, 'ann'],
      [1, 7, 700, 'X', 3],
      [1, 7, 700, 'X', 'acme', 'ann'],
      [1, 7, 700, 'E', 'acme', 'ann', 'extra'],
    ]) {
      await refusalOf(signedPayload(parts));
    }
    await refusalOf(signedPayload(undefined, '[1,7,'));
    // The signed form of what the service issues is accepted: the refusals above are for their shape.
    const { store } = recordingStore();
    await expect(tokens().unsubscribe(store, signedPayload([1, 7, 700, 'U', 3]), key)).resolves.toMatchObject(
      {
        notificationId: 700,
      },
    );
  });
});

describe('unsubscribeTargetOf', () => {
  it('names a console user by id and an embed user by tenant and normalized externalId', () => {
    expect(
      tokens().unsubscribeTargetOf({
        deploymentId: 7,
        notificationId: 700,
        recipient: { type: 'USER', userId: 3, email: 'ada@example.com', username: 'ada' },
      }),
    ).toEqual(user);
    expect(
      tokens().unsubscribeTargetOf({
        deploymentId: 7,
        notificationId: 700,
        recipient: {
          type: 'EMBED_USER',
          embedTenantName: 'acme',
          externalId: ' Ann@X.example ',
          embedUserId: 9,
          email: 'ann@x.example',
        },
      }),
    ).toEqual(embedUser);
  });
});

describe('unsubscribePage', () => {
  it('shows a form that posts the token back, escaped, and refuses a bad token', () => {
    const token = tokens().unsubscribeToken(user, key);
    const page = tokens().unsubscribePage(token, key);
    expect(page).toContain(`<form method="post" action="?token=${encodeURIComponent(token)}">`);
    expect(page).toContain('<h1>Unsubscribe from this notification?</h1>');
    // No script or style at all, and the form posts back to this service only.
    expect(tokens().UNSUBSCRIBE_PAGE_POLICY).toContain("default-src 'none'; form-action 'self'");
    expect(() => tokens().unsubscribePage(tokens().unsubscribeToken(user, otherKey), key)).toThrow(
      'token: is not an unsubscribe token of this service',
    );
  });
});
