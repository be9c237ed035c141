import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * Deployed, the unsubscribe key comes from AWS's Parameters and Secrets extension over localhost. It
 * has no local engine: a stand-in on a local port records each request at that boundary and answers
 * as the extension does (GetSecretValue's JSON on a 200, a plain reason otherwise).
 */

const SECRET_ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:unsubscribe-key-AbCdEf';
const SESSION_TOKEN = 'session-token-of-the-invocation';

vi.hoisted(() => {
  // This file reads the key as a deployed function does: no key in the environment, only the secret's ARN.
  delete process.env.UNSUBSCRIBE_SIGNING_KEY;
  process.env.UNSUBSCRIBE_SECRET_ARN =
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:unsubscribe-key-AbCdEf';
  process.env.AWS_SESSION_TOKEN = 'session-token-of-the-invocation';
});

let answers: { status: number; body: string }[] = [];
const received: IncomingMessage[] = [];
const extension = createServer((request, response) => {
  received.push(request);
  const answer = answers.shift() ?? { status: 500, body: 'no answer prepared' };
  response.writeHead(answer.status).end(answer.body);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => extension.listen(0, 'localhost', resolve));
  process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String((extension.address() as AddressInfo).port);
});
afterAll(() => new Promise((resolve) => extension.close(resolve)));
beforeEach(() => {
  received.length = 0;
});

const secretValue = (secret: string) =>
  JSON.stringify({ ARN: SECRET_ARN, Name: 'unsubscribe-key', SecretString: secret });

describe('the unsubscribe key, deployed', () => {
  it('is asked of the extension by the secret ARN, with the session token it requires; a failure is not kept', async () => {
    const { unsubscribeKey } = await import('#lib/secrets/unsubscribe-key');
    answers = [{ status: 400, body: 'not ready to serve traffic, please wait' }];
    await expect(unsubscribeKey()).rejects.toThrow('The secrets extension answered 400');
    answers = [{ status: 200, body: secretValue('k'.repeat(64)) }];
    expect(await unsubscribeKey()).toEqual(Buffer.from('k'.repeat(64), 'utf8'));
    expect(received.map((request) => request.url)).toEqual([
      `/secretsmanager/get?secretId=${encodeURIComponent(SECRET_ARN)}`,
      `/secretsmanager/get?secretId=${encodeURIComponent(SECRET_ARN)}`,
    ]);
    expect(received.map((request) => request.headers['x-aws-parameters-secrets-token'])).toEqual([
      SESSION_TOKEN,
      SESSION_TOKEN,
    ]);
    // Read once per container: later requests use the key already read.
    expect(await unsubscribeKey()).toEqual(Buffer.from('k'.repeat(64), 'utf8'));
    expect(received).toHaveLength(2);
  });
});
