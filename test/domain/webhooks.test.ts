import { describe, expect, it } from 'vitest';
import { afterAttempt, endpointHealth, type WebhookMessage } from '#lib/domain/webhooks/messages';
import { refusedResolution, urlProblem } from '#lib/domain/webhooks/url-policy';

/** The pure rules of webhooks: where a message may go, when it is tried again, when an endpoint is disabled. */

const deployed = { allowLoopback: false };
const local = { allowLoopback: true };

describe('webhook URLs', () => {
  it.each([
    'https://127.0.0.1/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[fd00:ec2::254]/',
    'https://[fe80::1]/',
    'https://localhost/',
  ])('refuses %s deployed', (url) => {
    expect(urlProblem(url, deployed)).toMatch(/loopback|private|must/);
  });

  it('accepts https to a public address, and http only to the loopback locally', () => {
    expect(urlProblem('https://93.184.215.14/hook', deployed)).toBeUndefined();
    expect(urlProblem('https://hooks.example.org/x', deployed)).toBeUndefined();
    expect(urlProblem('http://hooks.example.org/x', deployed)).toBe('must be https://');
    expect(urlProblem('http://127.0.0.1:4000/hooks', local)).toBeUndefined();
    expect(urlProblem('http://hooks.example.org/x', local)).toMatch(/^must be https:\/\//);
    expect(urlProblem('https://user:pw@hooks.example.org/', deployed)).toBe('must not carry credentials');
    expect(urlProblem(`https://hooks.example.org/${'a'.repeat(2048)}`, deployed)).toMatch(/2048/);
  });

  it('refuses a resolution with any refused address, or none', () => {
    expect(refusedResolution(['93.184.215.14'], deployed)).toBe(false);
    expect(refusedResolution(['93.184.215.14', '10.0.0.7'], deployed)).toBe(true);
    expect(refusedResolution([], deployed)).toBe(true);
    expect(refusedResolution(['127.0.0.1'], local)).toBe(false);
    expect(refusedResolution(['127.0.0.1'], deployed)).toBe(true);
  });
});

const message: WebhookMessage = {
  messageId: 'msg_1',
  deploymentId: 7,
  webhookId: 'wh_1',
  type: 'run.completed',
  body: '{}',
  createdAt: '2026-11-23T08:00:00.000Z',
  status: 'pending',
  attempts: 0,
  lastStatusCode: null,
  lastError: null,
  nextAttemptAt: '2026-11-23T08:00:00.000Z',
};
const now = Date.parse('2026-11-23T08:00:00Z');

describe('the retry schedule', () => {
  it('tries again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then fails', () => {
    const waits: number[] = [];
    let current = message;
    for (let n = 0; n < 8; n++) {
      current = afterAttempt(current, { statusCode: 503, excerpt: 'busy' }, now);
      if (current.nextAttemptAt) waits.push(Date.parse(current.nextAttemptAt) - now);
    }
    expect(waits).toEqual([5e3, 300e3, 1800e3, 7200e3, 18000e3, 36000e3, 36000e3]);
    expect(current).toMatchObject({
      status: 'failed',
      attempts: 8,
      nextAttemptAt: null,
      lastError: 'HTTP 503: busy',
    });
  });

  it('delivers on any 2xx and on nothing else', () => {
    expect(afterAttempt(message, { statusCode: 204, excerpt: '' }, now).status).toBe('delivered');
    expect(afterAttempt(message, { statusCode: 301, excerpt: '' }, now).status).toBe('pending');
    expect(afterAttempt(message, { statusCode: null, error: 'timeout' }, now)).toMatchObject({
      status: 'pending',
      lastError: 'timeout',
    });
  });
});

describe('endpoint health', () => {
  const day = 24 * 3_600_000;
  it('disables an endpoint after 5 days of failures only, and any success starts afresh', () => {
    const since = new Date(now - 5 * day + 1).toISOString();
    expect(endpointHealth(since, { statusCode: 500, excerpt: '' }, now)).toEqual({
      failingSince: since,
      disable: false,
    });
    expect(endpointHealth(since, { statusCode: 500, excerpt: '' }, now + 1)).toEqual({
      failingSince: since,
      disable: true,
    });
    expect(endpointHealth(since, { statusCode: 200, excerpt: '' }, now)).toEqual({
      failingSince: null,
      disable: false,
    });
    expect(endpointHealth(null, { statusCode: null, error: 'x' }, now)).toEqual({
      failingSince: new Date(now).toISOString(),
      disable: false,
    });
  });
});
