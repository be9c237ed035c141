import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type UnsubscribeTarget,
  unsubscribe,
  unsubscribePage,
  unsubscribeTargetOf,
  unsubscribeToken,
} from '#lib/domain/unsubscribe';
import { ValidationError } from '#lib/errors';

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
  const error = await unsubscribe(store, token, key).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).problems).toEqual([
    { path: 'token', message: 'is not an unsubscribe token of this service' },
  ]);
  expect(removed).toEqual([]);
}

describe('unsubscribe tokens', () => {
  it('remove exactly the recipient they name, with the same answer every time', async () => {
    for (const target of [user, embedUser]) {
      const { store, removed } = recordingStore();
      const token = unsubscribeToken(target, key);
      const answer = { unsubscribed: true, deploymentId: 7, notificationId: 700 };
      expect(await unsubscribe(store, token, key)).toEqual(answer);
      expect(await unsubscribe(store, token, key)).toEqual(answer);
      expect(removed).toEqual([target, target]);
    }
  });

  it('are the same for every message to one recipient, and differ between recipients', () => {
    expect(unsubscribeToken(user, key)).toBe(unsubscribeToken({ ...user }, key));
    expect(unsubscribeToken(user, key)).not.toBe(unsubscribeToken(embedUser, key));
    expect(unsubscribeToken(user, key)).not.toBe(unsubscribeToken(user, otherKey));
  });

  it('are refused when signed with another key, altered, truncated or padded', async () => {
    const token = unsubscribeToken(user, key);
    const [payload, signature] = token.split('.') as [string, string];
    await refusalOf(unsubscribeToken(user, otherKey));
    await refusalOf(`${unsubscribeToken(embedUser, key).split('.')[0]}.${signature}`);
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
    ]) {
      await refusalOf(signedPayload(parts));
    }
    await refusalOf(signedPayload(undefined, '[1,7,'));
    // The signed form of what the service issues is accepted: the refusals above are for their shape.
    const { store } = recordingStore();
    await expect(unsubscribe(store, signedPayload([1, 7, 700, 'U', 3]), key)).resolves.toMatchObject({
      notificationId: 700,
    });
  });
});

describe('unsubscribeTargetOf', () => {
  it('names a console user by id and an embed user by tenant and normalized externalId', () => {
    expect(
      unsubscribeTargetOf({
        deploymentId: 7,
        notificationId: 700,
        recipient: { type: 'USER', userId: 3, email: 'ada@example.com', username: 'ada' },
      }),
    ).toEqual(user);
    expect(
      unsubscribeTargetOf({
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
    const token = unsubscribeToken(user, key);
    const page = unsubscribePage(token, key);
    expect(page).toContain(`<form method="post" action="?token=${encodeURIComponent(token)}">`);
    expect(page).toContain('<h1>Unsubscribe from this notification?</h1>');
    expect(() => unsubscribePage(unsubscribeToken(user, otherKey), key)).toThrow(ValidationError);
  });
});
