import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UnsubscribeTarget } from '#lib/domain/unsubscribe/unsubscribe';
import { freshForEachTest } from '#test/support/fresh-module';

/** Loaded anew in each test: the helpers it defines on import then count as checked by the tests below. */
const tokens = freshForEachTest(() => import('#lib/domain/unsubscribe/unsubscribe'));

/** Tokens signed and read back with a fixed key; a store that only records what it is asked to remove. */

const key = Buffer.alloc(32, 7);
/** A deployment without webhook endpoints: no event is recorded. */
const noEvents = {
  recorder: { subscribedTypes: async () => new Set<never>(), newEventId: () => 'evt_0' },
  now: 0,
};
const otherKey = Buffer.alloc(32, 8);
const user: UnsubscribeTarget = { deploymentId: 7, id: 700, recipient: { type: 'USER', userId: 3 } };
const embedUser: UnsubscribeTarget = {
  deploymentId: 7,
  id: 700,
  recipient: { type: 'EMBED_USER', embedTenantName: 'acme', normalizedExternalId: 'ann@x.example' },
};

/** A store whose rows are all the tokens' own subscriptions, unless `replaced` says they were made anew. */
function recordingStore({ replaced = false } = {}) {
  const removed: UnsubscribeTarget[] = [];
  return {
    removed,
    store: {
      removeSubscription: async (target: UnsubscribeTarget) => {
        if (!replaced) removed.push(target);
        return !replaced;
      },
      isReplaced: async () => replaced,
    },
  };
}

/** A token with the given parts, signed as the service signs: only the shape can be wrong. */
const signedPayload = (parts: unknown, json = JSON.stringify(parts)) => {
  const payload = Buffer.from(json).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(`unsubscribe.${payload}`).digest('base64url')}`;
};

const request = { ...noEvents, now: 0, requestId: 'test-request' };

async function refusalOf(token: string) {
  const { store, removed } = recordingStore();
  const error = await tokens()
    .unsubscribe(store, token, key, request)
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
      expect(await tokens().unsubscribe(store, token, key, request)).toEqual(answer);
      expect(await tokens().unsubscribe(store, token, key, request)).toEqual(answer);
      expect(removed).toEqual([target, target]);
    }
  });

  it('name the subscription they were made for, and remove nothing once it was made anew', async () => {
    const bound = { ...user, subscriptionNonce: 'n0nce' };
    const token = tokens().unsubscribeToken(bound, key);
    expect(token).not.toBe(tokens().unsubscribeToken(user, key));
    expect(token).not.toBe(tokens().unsubscribeToken({ ...user, subscriptionNonce: 'other' }, key));
    const current = recordingStore();
    await tokens().unsubscribe(current.store, token, key, request);
    expect(current.removed).toEqual([bound]);
    const made = recordingStore({ replaced: true });
    const error = await tokens()
      .unsubscribe(made.store, token, key, request)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'ValidationError',
      problems: [
        {
          path: 'token',
          message: 'has expired: the recipient was subscribed again since this link was sent',
        },
      ],
    });
    expect(made.removed).toEqual([]);
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

  it('are refused in any text but the exact one issued, even where it decodes to the same bytes', async () => {
    const token = tokens().unsubscribeToken(user, key);
    const [payload, signature] = token.split('.') as [string, string];
    // 32 bytes take 43 characters, whose last holds two spare bits: its neighbour decodes alike.
    const last = signature.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = alphabet[alphabet.indexOf(last) ^ 1] as string;
    expect(Buffer.from(`${signature.slice(0, -1)}${twin}`, 'base64url')).toEqual(
      Buffer.from(signature, 'base64url'),
    );
    for (const altered of [
      `${payload}.${signature.slice(0, -1)}${twin}`,
      `${token}=`,
      `${payload}=.${signature}`,
      `${token}!`,
      `${token}*`,
      `${token} `,
      ` ${token}`,
      `${payload}.${signature.slice(0, 5)}\n${signature.slice(5)}`,
      `${payload}.${signature.slice(0, 5)} ${signature.slice(5)}`,
      `${payload.slice(0, 5)} ${payload.slice(5)}.${signature}`,
    ]) {
      await refusalOf(altered);
    }
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
      [2, 7, 700, 'U', 3, ''],
      [2, 7, 700, 'U', 3, 5],
      [2, 7, 700, 'E', 'acme', 'n0nce'],
      [3, 7, 700, 'U', 3, 'n0nce'],
    ]) {
      await refusalOf(signedPayload(parts));
    }
    await refusalOf(signedPayload(undefined, '[1,7,'));
    // The signed form of what the service issues is accepted: the refusals above are for their shape.
    const { store, removed } = recordingStore();
    await tokens().unsubscribe(store, signedPayload([1, 7, 700, 'U', 3]), key, request);
    await tokens().unsubscribe(store, signedPayload([2, 7, 700, 'E', 'acme', 'ann', 'n0nce']), key, request);
    expect(removed).toEqual([
      user,
      {
        ...embedUser,
        recipient: { ...embedUser.recipient, normalizedExternalId: 'ann' },
        subscriptionNonce: 'n0nce',
      },
    ]);
  });
});

describe('unsubscribeTargetOf', () => {
  it('names a console user by id and an embed user by tenant and normalized externalId, with the subscription', () => {
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
        recipient: { type: 'USER', userId: 3, email: 'ada@example.com', username: 'ada' },
        subscriptionNonce: 'n0nce',
      }),
    ).toEqual({ ...user, subscriptionNonce: 'n0nce' });
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
  it('shows a form that posts the token back, escaped, and refuses a bad token', async () => {
    const { store } = recordingStore();
    const token = tokens().unsubscribeToken(user, key);
    const page = await tokens().unsubscribePage(store, token, key);
    expect(page).toContain(`<form method="post" action="?token=${encodeURIComponent(token)}">`);
    expect(page).toContain('<h1>Unsubscribe from this notification?</h1>');
    // No script or style at all, and the form posts back to this service only.
    expect(tokens().UNSUBSCRIBE_PAGE_POLICY).toContain("default-src 'none'; form-action 'self'");
    await expect(
      tokens().unsubscribePage(store, tokens().unsubscribeToken(user, otherKey), key),
    ).rejects.toThrow('token: is not an unsubscribe token of this service');
  });

  it('says the link has expired, with no form, once the subscription was made anew', async () => {
    const { store } = recordingStore({ replaced: true });
    const page = await tokens().unsubscribePage(store, tokens().unsubscribeToken(user, key), key);
    expect(page).toContain('<h1>This unsubscribe link has expired</h1>');
    expect(page).not.toContain('<form');
  });
});
