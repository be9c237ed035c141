import { describe, expect, it } from 'vitest';
import { readConfig } from '#lib/config';

const base = { TABLE_NAME: 'notifications' };

const refusal = (variables: Record<string, string>) => {
  try {
    readConfig({ ...base, ...variables });
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('numeric settings', () => {
  it('take their defaults when unset', () => {
    const config = readConfig(base);
    expect(config.dispatchConcurrency).toBe(32);
    expect(config.dispatchWorkerSeconds).toBe(20);
    expect(config.runRetentionDays).toBe(90);
    expect(config.auditRetentionDays).toBe(365);
    expect(config.sendNowMinIntervalMs).toBe(10_000);
  });

  it('read whole numbers given as digits', () => {
    const config = readConfig({
      ...base,
      DISPATCH_CONCURRENCY: '3',
      RUN_RETENTION_DAYS: '1',
      AUDIT_RETENTION_DAYS: '30',
      DISPATCH_WORKER_SECONDS: '59',
    });
    expect(config).toMatchObject({
      dispatchConcurrency: 3,
      runRetentionDays: 1,
      auditRetentionDays: 30,
      dispatchWorkerSeconds: 59,
    });
  });

  it.each([
    ['DISPATCH_CONCURRENCY', ''],
    ['DISPATCH_CONCURRENCY', 'eight'],
    ['DISPATCH_CONCURRENCY', '1.5'],
    ['DISPATCH_CONCURRENCY', '-1'],
    ['MISFIRE_GRACE_MINUTES', '1e3'],
    ['RUN_RETENTION_DAYS', '0'],
    ['AUDIT_RETENTION_DAYS', '0'],
    ['DISPATCH_WORKER_SECONDS', '0'],
    ['DISPATCH_WORKER_SECONDS', '60'],
  ])('refuse %s=%j, naming the variable', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error).toMatchObject({ name: 'ConfigurationError', variables: [name] });
  });
});

describe('text and URL settings', () => {
  it('refuse a missing or empty table name, naming it once', () => {
    expect(() => readConfig({})).toThrow(expect.objectContaining({ variables: ['TABLE_NAME'] }));
    expect(refusal({ TABLE_NAME: '' })).toMatchObject({ variables: ['TABLE_NAME'] });
  });

  it('take an http(s) URL, and keep the public base URL without its trailing slashes', () => {
    const config = readConfig({
      ...base,
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/jobs',
      PUBLIC_BASE_URL: 'https://api.example.com/prod//',
    });
    expect(config).toMatchObject({
      dynamoDbEndpoint: 'http://127.0.0.1:8000',
      deliveryQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/jobs',
      publicBaseUrl: 'https://api.example.com/prod',
    });
  });

  it.each([
    ['DYNAMODB_ENDPOINT', 'localhost:8000'],
    ['DELIVERY_QUEUE_URL', 'sqs/jobs'],
    ['PUBLIC_BASE_URL', 'ftp://files.example.com'],
    ['UNSUBSCRIBE_SIGNING_KEY', 'too short'],
    ['OUTBOX_DIR', ''],
  ])('refuse %s=%j, naming the variable', (name, value) => {
    expect(refusal({ [name]: value })).toMatchObject({ name: 'ConfigurationError', variables: [name] });
  });

  it('name every malformed variable at once, in the order they are read', () => {
    expect(refusal({ PUBLIC_BASE_URL: 'nope', DISPATCH_CONCURRENCY: 'x' })).toMatchObject({
      variables: ['DISPATCH_CONCURRENCY', 'PUBLIC_BASE_URL'],
      message:
        'Invalid configuration: check the environment variable(s) DISPATCH_CONCURRENCY, PUBLIC_BASE_URL',
    });
  });

  it('refuse a trusted issuer whose key address is not an http(s) URL', () => {
    const issuer = { kind: 'console', issuer: 'https://idp.example.com', audience: 'admin-api' };
    expect(
      readConfig({
        ...base,
        TRUSTED_ISSUERS: JSON.stringify([{ ...issuer, jwksUri: 'https://idp.example.com/jwks' }]),
      }).trustedIssuers,
    ).toHaveLength(1);
    expect(
      refusal({ TRUSTED_ISSUERS: JSON.stringify([{ ...issuer, jwksUri: 'file:///etc/jwks' }]) }),
    ).toMatchObject({
      variables: ['TRUSTED_ISSUERS'],
    });
  });
});
