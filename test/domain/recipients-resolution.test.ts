import { describe, expect, it } from 'vitest';
import type { EmbedUser } from '#lib/domain/entities';
import type { EmbedRecipientInput, RecipientInput } from '#lib/domain/recipients/recipients-input';
import {
  type Directory,
  isConsoleUserCase,
  refuseDuplicates,
  refuseSlack,
  resolveAgain,
  resolveRecipients,
  type StoredEmbedRecipient,
  type SupportedRecipientInput,
} from '#lib/domain/recipients/recipients-resolution';
import {
  ServiceError,
  UnavailableError,
  UnresolvableRecipientError,
  UnsupportedRecipientError,
  ValidationError,
} from '#lib/errors';
import { consoleUser } from '#test/support/domain-fixtures';

/** The checks of an add-recipients request, taken straight: the request alone, then what the store holds. */

const grace = consoleUser(11, { email: 'Grace@Example.com' });
const linus = consoleUser(12);
const gone = consoleUser(16, { active: false });
const alice: EmbedUser = {
  embedUserId: 5,
  embedTenantName: 'acme',
  externalId: 'Alice-1',
  email: 'alice@acme.example',
};
const directory: Directory = {
  tenants: ['acme'],
  users: [grace, linus, gone],
  emailLinks: [
    { email: 'grace@example.com', userId: 11 },
    { email: 'user12@example.com', userId: 12 },
    { email: 'user16@example.com', userId: 16 },
    // Left behind when user 12 changed address.
    { email: 'old-linus@example.com', userId: 12 },
  ],
  embedUsers: [alice],
};
const aliceRow: StoredEmbedRecipient = {
  type: 'EMBED_USER',
  embedTenantName: 'acme',
  normalizedExternalId: 'alice-1',
  externalId: 'Alice-1',
  embedUserId: 5,
  email: 'alice@acme.example',
  properties: { groups: ['sales'] },
};

const embed = (externalId: string, more: Partial<EmbedRecipientInput> = {}): EmbedRecipientInput => ({
  type: 'EMBED_USER',
  embedTenantName: 'acme',
  externalId,
  ...more,
});

/** The problems a check throws, as path → message, with the error's class. */
function refusal(check: () => unknown) {
  try {
    check();
  } catch (error) {
    if (error instanceof ServiceError) return { error, problems: error.problems };
    throw error;
  }
  throw new Error('expected the check to refuse');
}
const resolve = (items: SupportedRecipientInput[], rows: StoredEmbedRecipient[] = []) =>
  resolveRecipients(items, rows, directory);

describe('refuseSlack', () => {
  it('refuses every Slack item of the request, naming each', () => {
    const items: RecipientInput[] = [
      { type: 'USER', userId: 1 },
      { type: 'SLACK', channelId: 'C1' },
      { type: 'SLACK' },
    ];
    const { error, problems } = refusal(() => refuseSlack(items));
    expect(error).toBeInstanceOf(UnsupportedRecipientError);
    expect(problems).toEqual([
      { path: 'recipients.1', message: 'is a SLACK recipient; Slack recipients are not supported' },
      { path: 'recipients.2', message: 'is a SLACK recipient; Slack recipients are not supported' },
    ]);
  });

  it('passes a request without Slack items on as it is', () => {
    const items: RecipientInput[] = [{ type: 'USER', userId: 1 }, embed('bob')];
    expect(refuseSlack(items)).toEqual(items);
  });
});

describe('refuseDuplicates', () => {
  const problemsOf = (items: SupportedRecipientInput[]) => refusal(() => refuseDuplicates(items)).problems;

  it('refuses the same userId twice, naming the item it repeats', () => {
    expect(
      problemsOf([
        { type: 'USER', userId: 1 },
        { type: 'USER', userId: 2 },
        { type: 'USER', userId: 1 },
      ]),
    ).toEqual([{ path: 'recipients.2', message: 'is the same recipient as recipients[0]' }]);
  });

  it('names the first of several repeats', () => {
    const items: SupportedRecipientInput[] = [1, 1, 1].map((userId) => ({ type: 'USER', userId }));
    expect(problemsOf(items).map((problem) => problem.message)).toEqual([
      'is the same recipient as recipients[0]',
      'is the same recipient as recipients[0]',
    ]);
  });

  it('refuses the same e-mail twice whatever its case, even beside a userId not seen before', () => {
    const items: SupportedRecipientInput[] = [
      { type: 'USER', email: 'ada@example.com' },
      { type: 'USER', userId: 3, email: 'ADA@example.com' },
    ];
    expect(problemsOf(items)).toEqual([
      { path: 'recipients.1', message: 'is the same recipient as recipients[0]' },
    ]);
  });

  it('refuses the same embed user twice, its externalId matched without case', () => {
    expect(problemsOf([embed('Bob'), embed('bob')]).map((problem) => problem.path)).toEqual(['recipients.1']);
  });

  it('lets console users named by different ids or different e-mails stand side by side', () => {
    const items: SupportedRecipientInput[] = [
      { type: 'USER', email: 'ada@example.com' },
      { type: 'USER', email: 'bob@example.com' },
      { type: 'USER', userId: 1 },
      { type: 'USER', userId: 2 },
    ];
    expect(() => refuseDuplicates(items)).not.toThrow();
  });

  it('lets a userId, an e-mail and embed users of different tenants stand side by side', () => {
    const items: SupportedRecipientInput[] = [
      { type: 'USER', userId: 1 },
      { type: 'USER', email: '1' },
      embed('bob'),
      embed('bob', { embedTenantName: 'globex' }),
    ];
    expect(() => refuseDuplicates(items)).not.toThrow();
  });
});

describe('resolveRecipients', () => {
  it('resolves a console user by id or by e-mail, as new or already a recipient', () => {
    const resolved = resolve([
      { type: 'USER', userId: 12 },
      { type: 'USER', email: 'GRACE@example.com' },
    ]);
    expect(resolved).toEqual([
      { kind: 'new-user-recipient', user: linus },
      { kind: 'new-user-recipient', user: grace },
    ]);
    expect(
      resolveRecipients(
        [{ type: 'USER', userId: 12, email: 'user12@example.com' }],
        [{ type: 'USER', userId: 12 }],
        directory,
      ),
    ).toEqual([{ kind: 'existing-user-recipient', user: linus }]);
  });

  it('refuses a userId that names no active console user', () => {
    const { error, problems } = refusal(() =>
      resolve([
        { type: 'USER', userId: 16 },
        { type: 'USER', userId: 99 },
      ]),
    );
    expect(error).toBeInstanceOf(UnresolvableRecipientError);
    expect(problems).toEqual([
      { path: 'recipients.0.userId', message: 'does not name an active console user' },
      { path: 'recipients.1.userId', message: 'does not name an active console user' },
    ]);
  });

  it('refuses an e-mail no active console user has, a link its user has given up included', () => {
    const emails = ['nobody@example.com', 'user16@example.com', 'old-linus@example.com'];
    const { problems } = refusal(() => resolve(emails.map((email) => ({ type: 'USER', email }))));
    expect(problems).toEqual(
      emails.map((_, i) => ({
        path: `recipients.${i}.email`,
        message: "does not match an active console user's e-mail",
      })),
    );
  });

  it('refuses a userId and an e-mail that name different console users', () => {
    const { problems } = refusal(() => resolve([{ type: 'USER', userId: 12, email: 'grace@example.com' }]));
    expect(problems).toEqual([
      { path: 'recipients.0', message: 'userId and email name different console users' },
    ]);
  });

  it('refuses the same console user named by id in one item and by e-mail in another', () => {
    const { error, problems } = refusal(() =>
      resolve([
        { type: 'USER', userId: 11 },
        { type: 'USER', email: 'grace@example.com' },
      ]),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).not.toBeInstanceOf(UnresolvableRecipientError);
    expect(problems).toEqual([{ path: 'recipients.1', message: 'is the same recipient as recipients[0]' }]);
  });

  it('reports every problem in item order, a repeat among unresolvable items included', () => {
    const { error, problems } = refusal(() =>
      resolve([
        { type: 'USER', userId: 11 },
        { type: 'USER', userId: 99 },
        { type: 'USER', email: 'grace@example.com' },
        { type: 'USER', userId: 98 },
      ]),
    );
    expect(error).toBeInstanceOf(UnresolvableRecipientError);
    expect(problems.map((problem) => problem.path)).toEqual([
      'recipients.1.userId',
      'recipients.2',
      'recipients.3.userId',
    ]);
  });

  it('resolves an embed user that exists, with the properties the item supplies', () => {
    const groups = ['ops'];
    expect(resolve([embed('ALICE-1', { groups })])).toEqual([
      {
        kind: 'existing-embed-user',
        ref: { embedTenantName: 'acme', normalizedExternalId: 'alice-1' },
        supplied: { groups, securityContext: undefined, userAttributes: undefined },
        embedUser: alice,
      },
    ]);
  });

  it('resolves an embed user the notification has a row for by its row', () => {
    expect(resolve([embed('alice-1')], [aliceRow])).toMatchObject([
      { kind: 'existing-embed-recipient', row: aliceRow },
    ]);
  });

  it('resolves an embed user to create, its e-mail-shaped externalId the address', () => {
    expect(resolve([embed('new@acme.example')])).toMatchObject([
      { kind: 'new-embed-user', externalId: 'new@acme.example', email: 'new@acme.example' },
    ]);
  });

  it('takes a supplied e-mail for an embed user to create', () => {
    expect(resolve([embed('u-7', { email: 'u7@acme.example' })])).toMatchObject([
      { kind: 'new-embed-user', externalId: 'u-7', email: 'u7@acme.example' },
    ]);
  });

  it('refuses an embed user of a tenant that is not registered, and nothing more about it', () => {
    const { problems } = refusal(() => resolve([embed('u-7', { embedTenantName: 'globex' })]));
    expect(problems).toEqual([
      { path: 'recipients.0.embedTenantName', message: 'is not a registered embed tenant' },
    ]);
  });

  it('refuses a supplied e-mail that is not one, even for an embed user that exists', () => {
    const { problems } = refusal(() => resolve([embed('alice-1', { email: 'not-an-email' })]));
    expect(problems).toEqual([{ path: 'recipients.0.email', message: 'is not a valid e-mail address' }]);
  });

  it('refuses an embed user to create without an e-mail to send to', () => {
    const { problems } = refusal(() => resolve([embed('u-7')]));
    expect(problems).toEqual([
      {
        path: 'recipients.0',
        message: 'does not resolve to a valid e-mail: give email, or an e-mail-shaped externalId',
      },
    ]);
  });
});

describe('isConsoleUserCase', () => {
  it('tells a console user’s case, with a row or without, from an embed user’s', () => {
    const cases = resolve(
      [{ type: 'USER', userId: 11 }, { type: 'USER', userId: 12 }, embed('alice-1')],
      [aliceRow],
    );
    const withRow = resolveRecipients(
      [{ type: 'USER', userId: 11 }],
      [{ type: 'USER', userId: 11 }],
      directory,
    );
    expect([...cases, ...withRow].map(isConsoleUserCase)).toEqual([true, true, false, true]);
  });
});

describe('resolveAgain', () => {
  const [newGrace, newAlice] = resolve([{ type: 'USER', userId: 11 }, embed('alice-1')]);

  it('makes a console user whose row another request created an existing recipient', () => {
    const again = resolveAgain({ recipients: [{ type: 'USER', userId: 11 }], embedUsers: [] });
    expect(newGrace && again(newGrace)).toEqual({ kind: 'existing-user-recipient', user: grace });
  });

  it('makes an embed user whose row another request created an existing recipient', () => {
    const again = resolveAgain({ recipients: [aliceRow], embedUsers: [] });
    expect(newAlice && again(newAlice)).toMatchObject({ kind: 'existing-embed-recipient', row: aliceRow });
  });

  it('answers 503 for an embed user that has vanished since the request began', () => {
    const again = resolveAgain({ recipients: [], embedUsers: [] });
    expect(() => newAlice && again(newAlice)).toThrow(
      new UnavailableError('An embed user changed during the request'),
    );
  });
});
