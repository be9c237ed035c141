import { describe, expect, it } from 'vitest';
import { MAX_OUTCOME_ERROR_LENGTH } from '#lib/domain/runs/outcomes';
import { MAX_TEST_RECIPIENTS } from '#lib/domain/runs/test-send-input';
import { MAX_TOKEN_LENGTH } from '#lib/domain/unsubscribe/unsubscribe';
import { check } from '#lib/http/schemas/common';
import { KEY_PART_MAX_BYTES } from '#lib/limits';
import { freshForEachTest } from '#test/support/fresh-module';

const runs = freshForEachTest(() => import('#lib/http/schemas/runs'));
const paths = freshForEachTest(() => import('#lib/http/schemas/paths'));
const deliveries = freshForEachTest(() => import('#lib/http/schemas/deliveries'));

describe('runPath', () => {
  it('reads the ids, and takes any run id (an unknown one is not found, not invalid)', () => {
    expect(check(paths().runPath, { deploymentId: '7', id: '700', runId: 'anything at all' }).value).toEqual({
      deploymentId: 7,
      id: 700,
      runId: 'anything at all',
    });
    expect(check(paths().runPath, { deploymentId: '7', id: '700' }).problems).toEqual([
      { path: 'runId', message: 'is required' },
    ]);
  });
});

describe('sendNowInput', () => {
  const sendNow = (body: unknown) => check(runs().sendNowInput, body);

  it('takes no recipients, or 1 to 10 console users by userId or email', () => {
    expect(sendNow({}).value).toEqual({});
    expect(sendNow({ recipients: [{ userId: 3 }, { type: 'USER', email: 'a@b.example' }] }).problems).toEqual(
      [],
    );
    const users = (count: number) => Array.from({ length: count }, (_, i) => ({ userId: i + 1 }));
    expect(sendNow({ recipients: users(MAX_TEST_RECIPIENTS) }).problems).toEqual([]);
    expect(sendNow({ recipients: users(MAX_TEST_RECIPIENTS + 1) }).problems).toEqual([
      { path: 'recipients', message: `must have at most ${MAX_TEST_RECIPIENTS} recipients` },
    ]);
    expect(sendNow({ recipients: [] }).problems).toEqual([
      { path: 'recipients', message: 'must list at least one console user' },
    ]);
  });

  it('refuses an item naming no one, a bad userId, an over-long email or another kind', () => {
    expect(sendNow({ recipients: [{}] }).problems).toEqual([
      { path: 'recipients.0', message: 'must name a console user by userId or email' },
    ]);
    for (const userId of [0, -2, 1.5]) {
      expect(sendNow({ recipients: [{ userId }] }).problems).toEqual([
        { path: 'recipients.0.userId', message: 'must be a positive integer' },
      ]);
    }
    expect(sendNow({ recipients: [{ email: `${'a'.repeat(310)}@b.example` }] }).problems).toEqual([]);
    expect(sendNow({ recipients: [{ email: `${'a'.repeat(311)}@b.example` }] }).problems).toEqual([
      { path: 'recipients.0.email', message: 'must be at most 320 characters' },
    ]);
    // An e-mail is looked up by key: one that fits 320 characters but not a key part, once encoded, is a 400.
    expect(sendNow({ recipients: [{ email: `${'€'.repeat(52)}@b.example` }] }).problems).toEqual([]);
    expect(sendNow({ recipients: [{ email: `${'€'.repeat(53)}@b.example` }] }).problems).toEqual([
      { path: 'recipients.0.email', message: `must be at most ${KEY_PART_MAX_BYTES} bytes once URL-encoded` },
    ]);
    // The key holds the address lower-cased: ß stays ß (6 bytes encoded), where upper-cased it would be SS (2).
    expect(sendNow({ recipients: [{ email: `${'ß'.repeat(80)}@b.example` }] }).problems).toEqual([
      { path: 'recipients.0.email', message: `must be at most ${KEY_PART_MAX_BYTES} bytes once URL-encoded` },
    ]);
    expect(sendNow({ recipients: [{ type: 'SLACK', userId: 1 }] }).problems.map((p) => p.path)).toEqual([
      'recipients.0.type',
    ]);
    expect(sendNow({ recipients: [{ userId: 1, channelId: 'C' }] }).problems).toEqual([
      { path: 'recipients.0.channelId', message: 'is not a known field' },
    ]);
  });
});

describe('outcomeInput', () => {
  const outcome = (body: Record<string, unknown>) =>
    check(deliveries().outcomeInput, { attempt: 1, ...body });

  it('takes each outcome, an error only with failed', () => {
    for (const status of ['delivered', 'failed']) expect(outcome({ status }).problems).toEqual([]);
    expect(outcome({ status: 'failed', error: 'SMTP 550' }).value).toEqual({
      status: 'failed',
      error: 'SMTP 550',
      attempt: 1,
    });
    expect(outcome({ status: 'delivered', error: 'x' }).problems).toEqual([
      { path: 'error', message: 'is only for a failed delivery' },
    ]);
    expect(outcome({ status: 'lost' }).problems.map((p) => p.path)).toEqual(['status']);
  });

  it('bounds the error text and the attempt number', () => {
    expect(outcome({ status: 'failed', error: 'e'.repeat(MAX_OUTCOME_ERROR_LENGTH) }).problems).toEqual([]);
    expect(outcome({ status: 'failed', error: 'e'.repeat(MAX_OUTCOME_ERROR_LENGTH + 1) }).problems).toEqual([
      { path: 'error', message: `must be at most ${MAX_OUTCOME_ERROR_LENGTH} characters` },
    ]);
    expect(outcome({ status: 'failed', attempt: 1_000_000 }).problems).toEqual([]);
    expect(outcome({ status: 'failed', attempt: 1_000_001 }).problems).toEqual([
      { path: 'attempt', message: 'must be from 1 to 1000000' },
    ]);
    expect(outcome({ status: 'failed', attempt: 0 }).problems).toEqual([
      { path: 'attempt', message: 'must be from 1 to 1000000' },
    ]);
  });
});

describe('jobPath and unsubscribeQuery', () => {
  it('bound the job id and the token', () => {
    expect(check(deliveries().jobPath, { jobId: 'j'.repeat(200) }).problems).toEqual([]);
    expect(check(deliveries().jobPath, { jobId: 'j'.repeat(201) }).problems).toEqual([
      { path: 'jobId', message: 'must be at most 200 characters' },
    ]);
    const token = (value: string) => check(deliveries().unsubscribeQuery, { token: value }).problems;
    expect(token('t'.repeat(MAX_TOKEN_LENGTH))).toEqual([]);
    expect(token('t'.repeat(MAX_TOKEN_LENGTH + 1))).toEqual([
      { path: 'token', message: `must be at most ${MAX_TOKEN_LENGTH} characters` },
    ]);
    expect(token('')).toEqual([{ path: 'token', message: 'is required' }]);
  });
});
